import './voices.css'
import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { type Resolver, useForm } from 'react-hook-form'
import {
  CONSENT_MAX_SECONDS,
  CONSENT_MIN_SECONDS,
  CONSENT_PHRASE,
  CONSENT_RECORDING_MAX_BYTES,
} from '../../../schema/index.ts'
import { type ConsentLink, consentLinkQuery, sendConsentThroughLink } from '../../api/consent-requests.ts'
import { ApiRequestError } from '../../api/http.ts'
import { describeFailure, type Failure } from './failures.ts'
import { ClipForm, ClipSection, useFailureFocus } from './form-parts.tsx'
import { type RemoteConsentFields, type RemoteConsentInput, remoteConsentFormSchema } from './form-schemas.ts'
import { formatWhen } from './format.ts'
import { useSave } from './useSave.ts'

const resolver = zodResolver(remoteConsentFormSchema) as Resolver<
  RemoteConsentFields,
  unknown,
  RemoteConsentInput
>

const FAILURE_FIELDS: Partial<Record<NonNullable<Failure['field']>, keyof RemoteConsentFields>> = {
  transcript: 'transcript',
  recording: 'clip',
}

/** A refusal of the link itself reads as such on this page: there is no sign-in here to speak of. */
function failureOf(err: unknown): Failure {
  if (err instanceof ApiRequestError && err.code === 'rate_limited')
    return {
      what: 'Too many attempts from this network.',
      next: 'Wait a minute, then send again.',
    }
  return describeFailure(err, 'consent')
}

/**
 * The page a voice's owner opens from a consent link (`/consent/<token>`), on any device and without an account: who
 * asks and for what, the phrase, the recorder (or a file) with the administrator's form's checks, and Send consent.
 */
export function ConsentLinkPage({ token }: { token: string }) {
  const link = useQuery(consentLinkQuery(token))
  if (link.isPending)
    return (
      <section className="page" aria-busy="true">
        <p role="status">Opening the consent link…</p>
      </section>
    )
  if (link.isError) {
    const unusable = link.error instanceof ApiRequestError && link.error.status === 410
    return (
      <section aria-labelledby="consent-link-heading" className="page">
        <h1 id="consent-link-heading">
          {unusable ? 'This consent link cannot be used' : 'The consent link could not be opened'}
        </h1>
        <p>
          {unusable
            ? 'A consent link works once, for a limited time, and can be withdrawn. Ask the person who sent it to you for a new one.'
            : failureOf(link.error).what}
        </p>
        {!unusable && (
          <button type="button" onClick={() => void link.refetch()}>
            Try again
          </button>
        )}
      </section>
    )
  }
  return <RecordConsent token={token} link={link.data} />
}

function RecordConsent({ token, link }: { token: string; link: ConsentLink }) {
  const id = useId()
  const [sent, setSent] = useState(false)
  const form = useForm<RemoteConsentFields, unknown, RemoteConsentInput>({
    resolver,
    defaultValues: { clip: null, transcript: '' },
  })
  const save = useSave(
    'your consent',
    {
      checking: 'Checking the recording…',
      slow: 'The service may be checking other recordings first. Keep waiting, or cancel.',
    },
    () => {},
  )
  useFailureFocus(save, form.setFocus, FAILURE_FIELDS)

  const onSubmit = form.handleSubmit((input) =>
    save.start({
      send: (opts) =>
        sendConsentThroughLink(token, { recording: input.clip, transcript: input.transcript }, opts),
      saved: async (recorded) => {
        setSent(true)
        return `Thank you, ${recorded.owner_name}. Your consent was recorded and sent to ${link.requested_by}. This link is now used up; you can close this page.`
      },
      failed: failureOf,
    }),
  )

  return (
    <section aria-labelledby={`${id}-heading`} className="page voices-page">
      <h1 id={`${id}-heading`}>Record your consent</h1>
      <p>
        <strong>{link.requested_by}</strong> asks <strong>{link.owner_name}</strong> for consent to create a
        synthetic voice from their voice in Speech Studio. If you agree, read the sentence below aloud and
        send the recording. It is kept as the record of your consent; you can ask {link.requested_by} to
        revoke it at any time, which deletes it and every voice made from it.
      </p>
      <dl className="consent-link-facts">
        <dt>Language of the recording</dt>
        <dd>{link.language}</dd>
        <dt>This link works until</dt>
        <dd>{formatWhen(Math.floor(link.expires_at / 1000))}, once</dd>
      </dl>
      {sent ? (
        <p role="status" className="success">
          {save.message}
        </p>
      ) : (
        <div className="panel">
          <figure className="phrase">
            <figcaption id={`${id}-phrase-caption`}>
              Read this sentence aloud, exactly as written, in one go:
            </figcaption>
            <blockquote lang="en" aria-describedby={`${id}-phrase-caption`}>
              {CONSENT_PHRASE}
            </blockquote>
          </figure>
          <ClipForm form={form} busy={save.busy} onSubmit={onSubmit}>
            <ClipSection
              legend="Consent recording"
              range={{ minSeconds: CONSENT_MIN_SECONDS, maxSeconds: CONSENT_MAX_SECONDS }}
              maxBytes={CONSENT_RECORDING_MAX_BYTES}
              basename="consent"
              transcriptLabel="Transcript (optional)"
              transcriptHint="Leave empty and the service listens to the recording to check the phrase. Fill it in (with the phrase as spoken) only if you are asked to."
              save={save}
              submitLabel="Send consent"
              busyLabel="Sending consent…"
            />
          </ClipForm>
        </div>
      )}
    </section>
  )
}
