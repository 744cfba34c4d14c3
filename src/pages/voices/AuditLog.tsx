import { useId } from 'react'
import type { AuditEvent } from '../../api/audit.ts'
import { ConsentRecordButton } from './ConsentRecordButton.tsx'
import { ErasureLog } from './ErasureLog.tsx'
import { describeFailure } from './failures.ts'
import { FailureMessage, IdBadge, When } from './parts.tsx'
import { useAuditLog } from './queries.ts'

function describeEvent(e: AuditEvent): string {
  if (e.kind === 'consent') return e.action === 'created' ? 'Recorded consent' : 'Revoked consent'
  if (e.action === 'created')
    return e.consent_id ? 'Created voice bound to a consent' : 'Created voice (extension form)'
  return e.action === 'deleted' ? 'Deleted voice' : 'Voice revoked with its consent'
}

/** The backend's audit trail of consents and voices: who did what, when. Newest first, paged. */
export function AuditLog() {
  const id = useId()
  const log = useAuditLog()
  const events = log.data?.pages.flatMap((page) => page.data) ?? []
  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Activity</h2>
      {log.isPending ? (
        <p>Loading the audit trail…</p>
      ) : log.isError ? (
        <>
          <FailureMessage failure={describeFailure(log.error, 'load')} />
          <button type="button" onClick={() => void log.refetch()}>
            Try again
          </button>
        </>
      ) : events.length === 0 ? (
        <p className="muted">
          Nothing yet: consents and voices created or deleted in the studio appear here.
        </p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="visually-hidden">Consent and voice changes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Record</th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id}>
                  <td>
                    <When at={e.at} />
                  </td>
                  <td>{e.user}</td>
                  <td>{describeEvent(e)}</td>
                  <td>{e.name ?? '—'}</td>
                  <td>
                    <IdBadge id={e.upstream_id} what={e.kind} />
                  </td>
                  <td>
                    {e.kind === 'consent' && <ConsentRecordButton consentId={e.upstream_id} name={e.name} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasNextPage && (
        <div className="buttons">
          <button type="button" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
            {log.isFetchingNextPage ? 'Loading…' : 'Load older activity'}
          </button>
        </div>
      )}
      <ErasureLog />
    </section>
  )
}
