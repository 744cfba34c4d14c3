import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { deleteTranscript, transcriptListQuery } from '../../api/transcripts.ts'
import { useReview } from './review-store.ts'
import { clock } from './turns.ts'

/** The organization's saved transcripts, newest first; open one to review it with its audio. */
export function SavedTranscripts() {
  const { data, error, isPending } = useQuery(transcriptListQuery)
  const queryClient = useQueryClient()
  const openId = useReview((s) => s.open?.transcript.id ?? null)
  const loading = useReview((s) => s.loading)
  const loadError = useReview((s) => s.loadError)
  const [deleteError, setDeleteError] = useState<string | null>(null)

  return (
    <section aria-labelledby="saved-heading" className="panel saved">
      <h2 id="saved-heading">Saved transcripts</h2>
      {isPending && <p>Loading…</p>}
      {error && <p className="field-error">Could not list the transcripts: {(error as Error).message}</p>}
      {loadError && <p className="field-error">{loadError}</p>}
      {deleteError && <p className="field-error">{deleteError}</p>}
      {data && data.length === 0 && <p className="muted">None yet. Transcribe a recording above.</p>}
      {data && data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Recording</th>
                <th scope="col">When</th>
                <th scope="col">Length</th>
                <th scope="col">Speakers</th>
                <th scope="col">By</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((t) => (
                <tr key={t.id} aria-current={t.id === openId ? 'true' : undefined}>
                  <th scope="row">
                    {t.name}
                    {t.source === 'live' && <span className="muted"> (live)</span>}
                    {t.edited && <span className="muted"> · edited</span>}
                  </th>
                  <td>{new Date(t.created_at).toLocaleString()}</td>
                  <td>{clock(t.duration, false)}</td>
                  <td>
                    {t.diarization_status === null
                      ? 'not labelled'
                      : t.diarization_status === 'completed'
                        ? t.speakers
                        : t.diarization_status}
                  </td>
                  <td>{t.created_by}</td>
                  <td className="actions">
                    <button
                      type="button"
                      onClick={() => void useReview.getState().load(t.id)}
                      disabled={loading === t.id}
                      aria-label={`Open ${t.name}`}
                    >
                      {loading === t.id ? 'Opening…' : 'Open'}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Delete ${t.name}`}
                      onClick={async () => {
                        if (!window.confirm(`Delete the transcript of ${t.name} and its recording?`)) return
                        setDeleteError(null)
                        try {
                          await deleteTranscript(t.id)
                          if (useReview.getState().open?.transcript.id === t.id) useReview.getState().close()
                        } catch (err) {
                          setDeleteError(`Could not delete ${t.name}: ${(err as Error).message}`)
                        }
                        void queryClient.invalidateQueries({ queryKey: transcriptListQuery.queryKey })
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
