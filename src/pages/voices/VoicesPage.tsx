import './voices.css'
import { mayUse, ROLE_LABELS, rolesFor } from '../../state/pages.ts'
import { useSession } from '../../state/session.ts'
import { AuditLog } from './AuditLog.tsx'
import { ConsentForm } from './ConsentForm.tsx'
import { ConsentList } from './ConsentList.tsx'
import { ConsentRequests } from './ConsentRequests.tsx'
import { useOrigins } from './queries.ts'
import { VoiceForm } from './VoiceForm.tsx'
import { VoiceList } from './VoiceList.tsx'

/**
 * Consents and saved voices, for consent administrators and administrators: record a consent, create voices from
 * samples bound to it, see where each came from (the backend's audit trail), and revoke.
 */
export function VoicesPage() {
  const role = useSession((s) => s.user?.role)
  // The shell routes other roles elsewhere; this guard keeps the page safe if it is ever mounted for them.
  if (!role || !mayUse(role, 'voices')) {
    return (
      <section aria-labelledby="voices-heading" className="page">
        <h1 id="voices-heading">Voices</h1>
        <p role="alert">
          Not permitted: consents and saved voices are managed by the{' '}
          {rolesFor('voices')
            .map((r) => ROLE_LABELS[r])
            .join(' and ')}{' '}
          roles. Ask an administrator if you need this.
        </p>
      </section>
    )
  }
  return <VoicesWorkspace />
}

function VoicesWorkspace() {
  const origins = useOrigins()
  return (
    <section aria-labelledby="voices-heading" className="page voices-page">
      <h1 id="voices-heading">Voices</h1>
      <p>
        Record the consent of a voice’s owner, create saved voices from samples of the same person, and revoke
        a consent together with every voice bound to it. Saved voices appear in the script page’s voice
        picker.
      </p>
      <nav aria-label="On this page" className="page-nav">
        <ul>
          <li>
            <a href="#record-consent">Record a consent</a>
          </li>
          <li>
            <a href="#consent-requests">Ask for consent by link</a>
          </li>
          <li>
            <a href="#consents">Consents</a>
          </li>
          <li>
            <a href="#create-voice">Create a saved voice</a>
          </li>
          <li>
            <a href="#saved-voices">Saved voices</a>
          </li>
          <li>
            <a href="#activity">Activity</a>
          </li>
        </ul>
      </nav>
      <div id="record-consent">
        <ConsentForm />
      </div>
      <div id="consent-requests">
        <ConsentRequests />
      </div>
      <div id="consents">
        <ConsentList origins={origins.data} />
      </div>
      <div id="create-voice">
        <VoiceForm />
      </div>
      <div id="saved-voices">
        <VoiceList origins={origins.data} />
      </div>
      <div id="activity">
        <AuditLog />
      </div>
    </section>
  )
}
