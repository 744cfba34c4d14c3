import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId, useRef, useState } from 'react'
import { deleteConsent, type VoiceConsent } from '../../api/consents.ts'
import { ConsentRecordButton } from './ConsentRecordButton.tsx'
import { ErasureCount } from './ErasureCount.tsx'
import { describeFailure } from './failures.ts'
import { consentCount } from './format.ts'
import { ConfirmDialog, FailureMessage, IdBadge, Provenance } from './parts.tsx'
import { forgetConsent, type Origins, refreshAfterChange, useConsents, useSavedVoices } from './queries.ts'

/** The consents, newest first, paged; search by name; each consent's voices; revoke with confirmation. */
export function ConsentList({ origins }: { origins: Origins | undefined }) {
  const id = useId()
  const queryClient = useQueryClient()
  const consents = useConsents()
  const voices = useSavedVoices()
  const [search, setSearch] = useState('')
  const [revoking, setRevoking] = useState<VoiceConsent | null>(null)
  const [done, setDone] = useState('')
  const headingRef = useRef<HTMLHeadingElement>(null)

  const revoke = useMutation({
    mutationFn: (consent: VoiceConsent) => deleteConsent(consent.id),
    onSuccess: async (_result, consent) => {
      const gone = dependentsOf(consent.id)
      setRevoking(null)
      setDone(
        `Consent of “${consent.name}” revoked${gone.length ? `, with ${gone.map((v) => `“${v.name}”`).join(', ')}` : ''}.`,
      )
      forgetConsent(queryClient, consent.id)
      await refreshAfterChange(queryClient)
    },
    onError: () => void refreshAfterChange(queryClient),
  })

  const all = consents.data?.pages.flatMap((page) => page.data) ?? []
  const needle = search.trim().toLowerCase()
  const shown = needle ? all.filter((c) => c.name.toLowerCase().includes(needle)) : all
  const dependentsOf = (consentId: string) => voices.data?.filter((v) => v.consent === consentId) ?? []
  const revokingVoices = revoking ? dependentsOf(revoking.id) : []
  const voicesKnown = voices.isSuccess && !voices.isFetching

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        Consents
      </h2>
      <div className="field search">
        <label htmlFor={`${id}-search`}>Search consents by name</label>
        <input
          id={`${id}-search`}
          type="search"
          value={search}
          autoComplete="off"
          onChange={(e) => setSearch(e.target.value)}
        />
      </div>
      <p aria-live="polite" className="success">
        {done}
      </p>
      {revoke.isError && !revoking && <FailureMessage failure={describeFailure(revoke.error, 'revoke')} />}
      {consents.isPending ? (
        <p>Loading consents…</p>
      ) : consents.isError ? (
        <>
          <FailureMessage failure={describeFailure(consents.error, 'load')} />
          <button type="button" onClick={() => void consents.refetch()}>
            Try again
          </button>
        </>
      ) : (
        <>
          <p className="muted" aria-live="polite">
            {consentCount({
              loaded: all.length,
              more: consents.hasNextPage,
              search: search.trim(),
              matching: shown.length,
            })}
          </p>
          <ul className="cards" aria-label="Consents">
            {shown.map((consent) => {
              const bound = dependentsOf(consent.id)
              return (
                <li key={consent.id} className="card" aria-labelledby={`${id}-${consent.id}`}>
                  <h3 id={`${id}-${consent.id}`}>{consent.name}</h3>
                  <dl>
                    <dt>Language</dt>
                    <dd>{consent.language}</dd>
                    <dt>Recorded</dt>
                    <dd>
                      <Provenance
                        event={origins?.get(consent.id)}
                        verb="Recorded"
                        createdAt={consent.created_at}
                      />
                    </dd>
                    <dt>Id</dt>
                    <dd>
                      <IdBadge id={consent.id} what="consent" />
                    </dd>
                    <dt>Voices bound to it</dt>
                    <dd>
                      {!voices.isSuccess
                        ? '…'
                        : bound.length === 0
                          ? 'None'
                          : bound.map((v) => v.name).join(', ')}
                    </dd>
                  </dl>
                  <div className="buttons">
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke ${consent.name}`}
                      onClick={() => {
                        revoke.reset()
                        setDone('')
                        setRevoking(consent)
                        // The confirmation must name every voice that goes with it: ask the service again.
                        void voices.refetch()
                      }}
                    >
                      Revoke
                    </button>
                    <ConsentRecordButton consentId={consent.id} name={consent.name} />
                  </div>
                </li>
              )
            })}
          </ul>
          {consents.hasNextPage && (
            <div className="buttons">
              <button
                type="button"
                disabled={consents.isFetchingNextPage}
                onClick={() => void consents.fetchNextPage()}
              >
                {consents.isFetchingNextPage ? 'Loading…' : 'Load older consents'}
              </button>
              {needle && <span className="muted">Older consents are searched once loaded.</span>}
            </div>
          )}
        </>
      )}

      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? `Revoke the consent of “${revoking.name}”?` : 'Revoke the consent?'}
        confirmLabel={voicesKnown ? 'Revoke consent and voices' : 'Checking voices…'}
        busyLabel="Revoking…"
        busy={revoke.isPending}
        canConfirm={voicesKnown}
        failure={revoke.isError ? describeFailure(revoke.error, 'revoke') : null}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
        fallbackFocus={headingRef}
      >
        {!voicesKnown ? (
          <p>Checking which voices are bound to this consent…</p>
        ) : revokingVoices.length === 0 ? (
          <p>No saved voice is bound to this consent. The consent is deleted; this cannot be undone.</p>
        ) : (
          <>
            <p>
              The consent is deleted and{' '}
              {revokingVoices.length === 1 ? 'this voice is' : `these ${revokingVoices.length} voices are`}{' '}
              revoked with it; speech with {revokingVoices.length === 1 ? 'it' : 'them'} fails from now on.
              This cannot be undone.
            </p>
            <ul aria-label="Voices revoked with it">
              {revokingVoices.map((v) => (
                <li key={v.id}>{v.name}</li>
              ))}
            </ul>
          </>
        )}
        {revoking && <ErasureCount target={{ consent: revoking.id }} />}
      </ConfirmDialog>
    </section>
  )
}
