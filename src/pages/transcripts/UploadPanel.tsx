import { useQueryClient } from '@tanstack/react-query'
import { type DragEvent, type FormEvent, useRef, useState } from 'react'
import { formatBytes } from '../../../core/bytes.ts'
import { MAX_TRANSCRIPTION_FILE_BYTES } from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import { transcribeAndSave, transcriptListQuery } from '../../api/transcripts.ts'
import { peaksOfBlob } from '../../audio/peaks-browser.ts'
import { useReview } from './review-store.ts'
import {
  ACCEPT,
  type ChoiceErrors,
  DEFAULT_CHOICE,
  type DiarizationChoice,
  diarizationFields,
  fileProblem,
} from './upload-options.ts'

type Phase = 'idle' | 'uploading' | 'transcribing' | 'done' | 'error' | 'cancelled'

/** Why an upload failed and what to do, in the words every page uses (src/api/error-text.ts). */
function uploadFailure(err: unknown): string {
  const { title, action } = explainError(err)
  return `${title} ${action}`
}

/**
 * Upload a recording: drop it or choose it, pick the speaker options, and watch the upload and then the transcript
 * as the service produces it. The backend saves the transcript with its audio; the review opens when it is done.
 */
export function UploadPanel() {
  const [file, setFile] = useState<File | null>(null)
  const [choice, setChoice] = useState<DiarizationChoice>(DEFAULT_CHOICE)
  const [errors, setErrors] = useState<ChoiceErrors>({})
  const [fileError, setFileError] = useState<string | null>(null)
  const [phase, setPhase] = useState<Phase>('idle')
  const [progress, setProgress] = useState(0)
  const [streamed, setStreamed] = useState('')
  const [failure, setFailure] = useState<string | null>(null)
  const [dragging, setDragging] = useState(false)
  const controller = useRef<AbortController | null>(null)
  const queryClient = useQueryClient()
  const busy = phase === 'uploading' || phase === 'transcribing'

  const pick = (next: File | null) => {
    setFile(next)
    setFileError(next ? fileProblem(next) : null)
    setPhase('idle')
    setFailure(null)
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!file) {
      setFileError('Choose a recording first.')
      return
    }
    const problem = fileProblem(file)
    setFileError(problem)
    const options = diarizationFields(choice)
    setErrors(options.errors ?? {})
    if (problem || !options.fields) return
    const abort = new AbortController()
    controller.current = abort
    setPhase('uploading')
    setProgress(0)
    setStreamed('')
    setFailure(null)
    // Measured while the upload runs, saved with the transcript, so the waveform never decodes the recording again.
    const peaks = peaksOfBlob(file).catch(() => null)
    try {
      const { id } = await transcribeAndSave(
        { file, fileName: file.name, fields: options.fields },
        {
          signal: abort.signal,
          onProgress: ({ loaded, total }) => {
            setProgress(total > 0 ? loaded / total : 0)
            if (loaded >= total) setPhase('transcribing')
          },
          onDelta: (delta) => {
            setPhase('transcribing')
            setStreamed((text) => text + delta)
          },
        },
      )
      setPhase('done')
      void queryClient.invalidateQueries({ queryKey: transcriptListQuery.queryKey })
      await useReview.getState().load(id, await peaks)
    } catch (err) {
      if (abort.signal.aborted) {
        setPhase('cancelled')
        return
      }
      setPhase('error')
      setFailure(uploadFailure(err))
    } finally {
      controller.current = null
    }
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault()
    setDragging(false)
    if (busy) return
    const dropped = e.dataTransfer.files[0]
    if (dropped) pick(dropped)
  }

  const set = (patch: Partial<DiarizationChoice>) => {
    setChoice((c) => ({ ...c, ...patch }))
    setErrors({})
  }

  return (
    <section aria-labelledby="upload-heading" className="panel upload">
      <h2 id="upload-heading">Transcribe a recording</h2>
      <form onSubmit={submit} noValidate>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is the mouse's way in; the file field is the keyboard's */}
        <div
          className={`dropzone${dragging ? ' dropzone-active' : ''}`}
          onDragOver={(e) => {
            e.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          data-testid="dropzone"
        >
          <p className="dropzone-hint">
            Drop a recording here, or choose one (WAV, MP3, Ogg, AAC, FLAC, WebM, MP4; up to{' '}
            {formatBytes(MAX_TRANSCRIPTION_FILE_BYTES)}).
          </p>
          <label htmlFor="upload-file">Recording</label>
          <input
            id="upload-file"
            type="file"
            accept={ACCEPT}
            disabled={busy}
            aria-invalid={fileError ? true : undefined}
            aria-describedby={fileError ? 'upload-file-error' : undefined}
            onChange={(e) => pick(e.target.files?.[0] ?? null)}
          />
          {file && !fileError && (
            <p className="muted">
              {file.name}, {formatBytes(file.size)}
            </p>
          )}
          {fileError && (
            <p id="upload-file-error" className="field-error">
              {fileError}
            </p>
          )}
        </div>

        <fieldset className="speaker-options" disabled={busy}>
          <legend>Speakers</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={choice.enabled}
              onChange={(e) => set({ enabled: e.target.checked })}
            />
            Label speakers (diarization)
          </label>
          {choice.enabled && (
            <div className="count-modes" role="radiogroup" aria-label="Number of speakers">
              <label className="check">
                <input
                  type="radio"
                  name="count-mode"
                  checked={choice.mode === 'auto'}
                  onChange={() => set({ mode: 'auto' })}
                />
                Any number
              </label>
              <div className="count-row">
                <label className="check">
                  <input
                    type="radio"
                    name="count-mode"
                    checked={choice.mode === 'exact'}
                    onChange={() => set({ mode: 'exact' })}
                  />
                  Exactly
                </label>
                <label className="visually-hidden" htmlFor="num-speakers">
                  Exact number of speakers
                </label>
                <input
                  id="num-speakers"
                  className="count"
                  inputMode="numeric"
                  value={choice.exact}
                  disabled={choice.mode !== 'exact'}
                  aria-invalid={errors.exact ? true : undefined}
                  aria-describedby={errors.exact ? 'num-speakers-error' : undefined}
                  onChange={(e) => set({ exact: e.target.value })}
                />
              </div>
              <div className="count-row">
                <label className="check">
                  <input
                    type="radio"
                    name="count-mode"
                    checked={choice.mode === 'range'}
                    onChange={() => set({ mode: 'range' })}
                  />
                  Between
                </label>
                <label className="visually-hidden" htmlFor="min-speakers">
                  Fewest speakers
                </label>
                <input
                  id="min-speakers"
                  className="count"
                  inputMode="numeric"
                  value={choice.min}
                  disabled={choice.mode !== 'range'}
                  aria-invalid={errors.min ? true : undefined}
                  aria-describedby={errors.min ? 'min-speakers-error' : undefined}
                  onChange={(e) => set({ min: e.target.value })}
                />
                <span aria-hidden="true">and</span>
                <label className="visually-hidden" htmlFor="max-speakers">
                  Most speakers
                </label>
                <input
                  id="max-speakers"
                  className="count"
                  inputMode="numeric"
                  value={choice.max}
                  disabled={choice.mode !== 'range'}
                  aria-invalid={errors.max ? true : undefined}
                  aria-describedby={errors.max ? 'max-speakers-error' : undefined}
                  onChange={(e) => set({ max: e.target.value })}
                />
              </div>
              {(['exact', 'min', 'max'] as const).map((f) =>
                errors[f] ? (
                  <p key={f} id={`${f === 'exact' ? 'num' : f}-speakers-error`} className="field-error">
                    {errors[f]}
                  </p>
                ) : null,
              )}
            </div>
          )}
        </fieldset>

        <div className="buttons">
          <button type="submit" disabled={busy}>
            Transcribe
          </button>
          <button type="button" disabled={!busy} onClick={() => controller.current?.abort()}>
            Cancel
          </button>
        </div>
      </form>

      {phase === 'uploading' && (
        <progress className="upload-progress" max={1} value={progress} aria-label="Upload progress" />
      )}
      <p role="status" className={`status status-${phase === 'error' ? 'error' : 'idle'}`}>
        {phase === 'uploading' && `Uploading… ${Math.round(progress * 100)}%`}
        {phase === 'transcribing' && 'Transcribing… the text appears below as the service produces it.'}
        {phase === 'done' && 'Transcribed and saved. The review is open below.'}
        {phase === 'cancelled' && 'Cancelled. Nothing was saved.'}
        {phase === 'error' && failure}
      </p>
      {(phase === 'transcribing' || (phase !== 'idle' && streamed)) && (
        <p className="streamed" data-testid="streamed-text">
          {streamed || '…'}
        </p>
      )}
    </section>
  )
}
