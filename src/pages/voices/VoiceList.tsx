import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId, useRef, useState } from 'react'
import { deleteVoice, SAVED_VOICE_MODEL, type SavedCatalogVoice } from '../../api/voices.ts'
import { usePlayback, usePlayerReadyBeforePlay } from '../../state/playback.ts'
import { ErasureCount } from './ErasureCount.tsx'
import { describeFailure } from './failures.ts'
import { ConfirmDialog, FailureMessage, IdBadge, Provenance } from './parts.tsx'
import { forgetVoice, type Origins, refreshAfterChange, useConsents, useSavedVoices } from './queries.ts'

const DEFAULT_LINE = 'Hello! This is how I sound as a saved voice in the studio.'

const PREVIEW_STATUS = {
  idle: '',
  streaming: 'Generating…',
  playing: 'Playing…',
  done: 'Finished.',
  stopped: 'Stopped.',
  incomplete: 'The stream broke before it was complete.',
  error: 'The preview failed.',
} as const

/** The saved voices with their consent and provenance; preview one with a sample line; delete with confirmation. */
export function VoiceList({ origins }: { origins: Origins | undefined }) {
  const id = useId()
  const queryClient = useQueryClient()
  const voices = useSavedVoices()
  const consents = useConsents()
  // Status and error only: the player's counters change every 50 ms while a preview plays (as on the script page).
  const playbackStatus = usePlayback((s) => s.status)
  usePlayerReadyBeforePlay()
  const playbackError = usePlayback((s) => s.error)
  const [line, setLine] = useState(DEFAULT_LINE)
  /** The voice last previewed, and whether that preview is still running (the player is shared with other pages). */
  const [previewing, setPreviewing] = useState<SavedCatalogVoice | null>(null)
  const [previewRunning, setPreviewRunning] = useState(false)
  const previewToken = useRef(0)
  const [deleting, setDeleting] = useState<SavedCatalogVoice | null>(null)
  const [done, setDone] = useState('')
  const headingRef = useRef<HTMLHeadingElement>(null)

  const remove = useMutation({
    mutationFn: (voice: SavedCatalogVoice) => deleteVoice(voice.id),
    onSuccess: async (_result, voice) => {
      setDeleting(null)
      setDone(`Voice “${voice.name}” deleted.`)
      forgetVoice(queryClient, voice.id)
      await refreshAfterChange(queryClient)
    },
    onError: () => void refreshAfterChange(queryClient),
  })

  const consentName = new Map(
    (consents.data?.pages.flatMap((page) => page.data) ?? []).map((c) => [c.id, c.name]),
  )
  const previewStatus = previewRunning
    ? playbackStatus === 'playing'
      ? 'playing'
      : 'streaming'
    : playbackStatus

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        Saved voices
      </h2>
      <div className="field">
        <label htmlFor={`${id}-line`}>Sample line for previews</label>
        <input id={`${id}-line`} value={line} maxLength={400} onChange={(e) => setLine(e.target.value)} />
      </div>
      <p aria-live="polite" className="success">
        {done}
      </p>
      {remove.isError && !deleting && (
        <FailureMessage failure={describeFailure(remove.error, 'delete-voice')} />
      )}
      {previewing && (
        <div aria-live="polite" className={`preview-status status-${playbackStatus}`}>
          {!previewRunning && playbackStatus === 'error' ? (
            <FailureMessage
              failure={{
                what: `The preview of “${previewing.name}” failed: ${playbackError ?? 'unknown error'}`,
                next: 'If the voice was deleted or its consent revoked, the list refreshes; otherwise try again.',
              }}
            />
          ) : (
            PREVIEW_STATUS[previewStatus] && (
              <p>
                Preview of “{previewing.name}”: {PREVIEW_STATUS[previewStatus]}
              </p>
            )
          )}
        </div>
      )}
      {voices.isPending ? (
        <p>Loading saved voices…</p>
      ) : voices.isError ? (
        <>
          <FailureMessage failure={describeFailure(voices.error, 'load')} />
          <button type="button" onClick={() => void voices.refetch()}>
            Try again
          </button>
        </>
      ) : voices.data.length === 0 ? (
        <p className="muted">No saved voices yet. Create one above.</p>
      ) : (
        <ul className="cards" aria-label="Saved voices">
          {voices.data.map((voice) => {
            const isPreviewing = previewing?.id === voice.id && previewRunning
            return (
              <li key={voice.id} className="card" aria-labelledby={`${id}-${voice.id}`}>
                <h3 id={`${id}-${voice.id}`}>{voice.name}</h3>
                <dl>
                  <dt>Consent</dt>
                  <dd>
                    {voice.consent ? (
                      <>
                        {consentName.get(voice.consent) ?? 'A consent not loaded yet'}{' '}
                        <IdBadge id={voice.consent} what="consent" />
                      </>
                    ) : (
                      'None (extension form)'
                    )}
                  </dd>
                  <dt>Created</dt>
                  <dd>
                    <Provenance event={origins?.get(voice.id)} verb="Created" createdAt={voice.created_at} />
                  </dd>
                  <dt>Id</dt>
                  <dd>
                    <IdBadge id={voice.id} what="voice" />
                  </dd>
                </dl>
                <div className="buttons">
                  <button
                    type="button"
                    aria-label={isPreviewing ? `Stop the preview of ${voice.name}` : `Preview ${voice.name}`}
                    disabled={!line.trim()}
                    onClick={async () => {
                      if (isPreviewing) return void usePlayback.getState().stop()
                      const token = ++previewToken.current
                      setPreviewing(voice)
                      setPreviewRunning(true)
                      try {
                        // Resolves once the preview has played out, stopped or failed.
                        await usePlayback.getState().play({
                          model: SAVED_VOICE_MODEL,
                          voice: { id: voice.id },
                          input: line.trim(),
                        })
                      } finally {
                        // A newer preview that replaced this one owns the state now.
                        if (previewToken.current === token) setPreviewRunning(false)
                      }
                      if (previewToken.current === token && usePlayback.getState().status === 'error')
                        void refreshAfterChange(queryClient)
                    }}
                  >
                    {isPreviewing ? 'Stop' : 'Preview'}
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete ${voice.name}`}
                    onClick={() => {
                      remove.reset()
                      setDone('')
                      setDeleting(voice)
                    }}
                  >
                    Delete
                  </button>
                </div>
              </li>
            )
          })}
        </ul>
      )}

      <ConfirmDialog
        open={deleting !== null}
        title={deleting ? `Delete the voice “${deleting.name}”?` : 'Delete the voice?'}
        confirmLabel="Delete voice"
        busyLabel="Deleting…"
        busy={remove.isPending}
        failure={remove.isError ? describeFailure(remove.error, 'delete-voice') : null}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(null)}
        fallbackFocus={headingRef}
      >
        <p>
          Only this voice is removed; its consent and other voices stay. Speech with it fails from now on.
          This cannot be undone.
        </p>
        {deleting && <ErasureCount target={{ voice: deleting.id }} />}
      </ConfirmDialog>
    </section>
  )
}
