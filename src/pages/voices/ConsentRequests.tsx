import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { NAME_MAX_CHARS } from '../../../schema/index.ts'
import {
  type ConsentRequest,
  type CreatedConsentRequest,
  consentRequestsQuery,
  createConsentRequest,
  revokeConsentRequest,
} from '../../api/consent-requests.ts'
import { describeFailure } from './failures.ts'
import { checkLanguageTag, formatWhen } from './format.ts'
import { FailureMessage } from './parts.tsx'
import { refreshAfterChange } from './queries.ts'

/** While links are open, how often the list is asked again, so a consent recorded through one shows up here. */
const OPEN_POLL_MS = 5_000

const whenMs = (ms: number) => formatWhen(Math.floor(ms / 1000))

/**
 * Ask a voice's owner for their consent remotely: a one-time link, shown once, that they open on their own device
 * (docs/voices-and-consents.md, Remote consent). The open links are listed, each with Revoke; when one is used, the
 * consent it brought appears in the consents list.
 */
export function ConsentRequests() {
  const id = useId()
  const queryClient = useQueryClient()
  const [ownerName, setOwnerName] = useState('')
  const [language, setLanguage] = useState('en-US')
  const [problems, setProblems] = useState<{ name?: string; language?: string }>({})
  const [created, setCreated] = useState<CreatedConsentRequest | null>(null)
  const [copied, setCopied] = useState('')
  const [done, setDone] = useState('')
  const nameRef = useRef<HTMLInputElement>(null)
  const languageRef = useRef<HTMLInputElement>(null)
  const linkRef = useRef<HTMLInputElement>(null)

  const open = useQuery({
    ...consentRequestsQuery,
    refetchInterval: (query) => ((query.state.data?.length ?? 0) > 0 ? OPEN_POLL_MS : false),
  })
  // A link that left the list was used (or expired): the consents list and the trail are asked again.
  const openIds = open.data?.map((r) => r.id).join(',')
  const previous = useRef<string | undefined>(undefined)
  useEffect(() => {
    if (openIds === undefined) return
    const before = previous.current?.split(',').filter(Boolean) ?? []
    const now = new Set(openIds.split(','))
    previous.current = openIds
    if (before.some((r) => !now.has(r))) void refreshAfterChange(queryClient)
  }, [openIds, queryClient])

  const create = useMutation({
    mutationFn: createConsentRequest,
    onSuccess: async (request) => {
      setCreated(request)
      setCopied('')
      setOwnerName('')
      await queryClient.invalidateQueries({ queryKey: consentRequestsQuery.queryKey })
    },
  })
  const revoke = useMutation({
    mutationFn: (request: ConsentRequest) => revokeConsentRequest(request.id),
    onSuccess: async (_r, request) => {
      setDone(`The link for “${request.owner_name}” was revoked; it no longer opens.`)
      if (created?.id === request.id) setCreated(null)
      await queryClient.invalidateQueries({ queryKey: consentRequestsQuery.queryKey })
    },
    onError: () => void queryClient.invalidateQueries({ queryKey: consentRequestsQuery.queryKey }),
  })

  // The link is selected when it appears, ready to copy.
  useEffect(() => {
    if (created) linkRef.current?.select()
  }, [created])

  function submit(event: FormEvent) {
    event.preventDefault()
    if (create.isPending) return
    const name = ownerName.trim()
    const checked = checkLanguageTag(language)
    const found = {
      ...(name ? {} : { name: 'Enter the name of the voice’s owner.' }),
      ...(checked.problem === null ? {} : { language: checked.problem }),
    }
    setProblems(found)
    if (found.name) return nameRef.current?.focus()
    if (found.language) return languageRef.current?.focus()
    setDone('')
    create.mutate({ ownerName: name, language: checked.tag ?? language })
  }

  const link = created ? `${window.location.origin}${created.path}` : ''

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Consent requests</h2>
      <p>
        When the owner of a voice cannot come to this microphone, send them a link: they open it on their own
        phone or computer, without an account, read the consent phrase and send it. The link works once, and
        you can revoke it until it is used.
      </p>
      <form className="voice-form" noValidate onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name of the voice’s owner</label>
          <input
            id={`${id}-name`}
            ref={nameRef}
            maxLength={NAME_MAX_CHARS}
            autoComplete="off"
            value={ownerName}
            aria-invalid={problems.name ? true : undefined}
            aria-describedby={problems.name ? `${id}-name-error` : undefined}
            onChange={(e) => setOwnerName(e.target.value)}
          />
          {problems.name && (
            <span id={`${id}-name-error`} className="field-error">
              {problems.name}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-language`}>Language of the recording</label>
          <input
            id={`${id}-language`}
            ref={languageRef}
            autoComplete="off"
            spellCheck={false}
            value={language}
            aria-invalid={problems.language ? true : undefined}
            aria-describedby={`${id}-language-hint${problems.language ? ` ${id}-language-error` : ''}`}
            onChange={(e) => setLanguage(e.target.value)}
            onBlur={() => {
              const checked = checkLanguageTag(language)
              if (checked.tag) setLanguage(checked.tag)
            }}
          />
          <span id={`${id}-language-hint`} className="hint">
            A language tag such as en-US, en-GB or de-DE.
          </span>
          {problems.language && (
            <span id={`${id}-language-error`} className="field-error">
              {problems.language}
            </span>
          )}
        </div>
        <div className="wide">
          {create.isError && <FailureMessage failure={describeFailure(create.error, 'consent')} />}
          <div className="buttons">
            <button type="submit" aria-disabled={create.isPending || undefined}>
              {create.isPending ? 'Creating link…' : 'Create consent link'}
            </button>
          </div>
        </div>
      </form>

      {created && (
        <div className="consent-link">
          <div className="field">
            <label htmlFor={`${id}-link`}>Consent link</label>
            <input
              id={`${id}-link`}
              ref={linkRef}
              readOnly
              value={link}
              aria-describedby={`${id}-link-hint`}
              onFocus={(e) => e.target.select()}
            />
            <span id={`${id}-link-hint`} className="hint">
              For “{created.owner_name}” ({created.language}). Send it to them yourself, by a channel only
              they read; it works once, until {whenMs(created.expires_at)}. The studio shows it only now.
            </span>
          </div>
          <div className="buttons">
            <button
              type="button"
              onClick={async () => {
                try {
                  await navigator.clipboard.writeText(link)
                  setCopied('Link copied.')
                } catch {
                  setCopied('Could not copy: the browser refused. Select the link and copy it.')
                }
              }}
            >
              Copy link
            </button>
          </div>
          <p aria-live="polite" className="success">
            {copied}
          </p>
        </div>
      )}

      <h3>Open links</h3>
      <p aria-live="polite" className="success">
        {done}
      </p>
      {revoke.isError && <FailureMessage failure={describeFailure(revoke.error, 'revoke')} />}
      {open.isPending ? (
        <p>Loading consent requests…</p>
      ) : open.isError ? (
        <>
          <FailureMessage failure={describeFailure(open.error, 'load')} />
          <button type="button" onClick={() => void open.refetch()}>
            Try again
          </button>
        </>
      ) : open.data.length === 0 ? (
        <p className="muted">No link is waiting to be used.</p>
      ) : (
        <ul className="cards" aria-label="Open consent links">
          {open.data.map((request) => (
            <li key={request.id} className="card" aria-labelledby={`${id}-${request.id}`}>
              <h4 id={`${id}-${request.id}`}>{request.owner_name}</h4>
              <dl>
                <dt>Language</dt>
                <dd>{request.language}</dd>
                <dt>Asked</dt>
                <dd>
                  by {request.created_by} on {whenMs(request.created_at)}
                </dd>
                <dt>Open until</dt>
                <dd>{whenMs(request.expires_at)}</dd>
              </dl>
              <div className="buttons">
                <button
                  type="button"
                  className="danger"
                  aria-label={`Revoke the link for ${request.owner_name}`}
                  disabled={revoke.isPending && revoke.variables?.id === request.id}
                  onClick={() => {
                    setDone('')
                    revoke.mutate(request)
                  }}
                >
                  Revoke
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
