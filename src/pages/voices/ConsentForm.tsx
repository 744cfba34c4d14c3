import { useQueryClient } from '@tanstack/react-query'
import { useId, useRef, useState } from 'react'
import {
  CONSENT_MAX_SECONDS,
  CONSENT_MIN_SECONDS,
  CONSENT_PHRASE,
  CONSENT_RECORDING_MAX_BYTES,
  NAME_MAX_CHARS,
} from '../../../schema/index.ts'
import { createConsent } from '../../api/client.ts'
import { type AudioClip, AudioInput } from './AudioInput.tsx'
import { describeFailure, type Failure } from './failures.ts'
import { checkLanguageTag } from './format.ts'
import { FailureMessage, UploadProgressBar, useDeferredFocus } from './parts.tsx'
import { refreshAfterChange } from './queries.ts'

interface FieldErrors {
  name?: string
  language?: string
  clip?: string
}

/** Record (or upload) the owner of a voice reading the consent phrase, and save it as a consent. */
export function ConsentForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const [name, setName] = useState('')
  const [language, setLanguage] = useState('en-US')
  const [transcript, setTranscript] = useState('')
  const [clip, setClip] = useState<AudioClip | null>(null)
  const [errors, setErrors] = useState<FieldErrors>({})
  const [failure, setFailure] = useState<Failure | null>(null)
  const [progress, setProgress] = useState<number | null>(null)
  const [saved, setSaved] = useState('')
  const nameRef = useRef<HTMLInputElement>(null)
  const languageRef = useRef<HTMLInputElement>(null)
  const transcriptRef = useRef<HTMLTextAreaElement>(null)
  const clipRef = useRef<HTMLButtonElement | HTMLInputElement>(null)
  const busy = progress !== null
  const focusLater = useDeferredFocus(busy)

  async function submit() {
    setFailure(null)
    setSaved('')
    const checked = checkLanguageTag(language)
    const next: FieldErrors = {
      name: name.trim() ? undefined : 'Enter the name of the voice’s owner.',
      language: checked.problem ?? undefined,
      clip: !clip ? 'Record the phrase or choose a file first.' : (clip.problem ?? undefined),
    }
    setErrors(next)
    if (next.name) return nameRef.current?.focus()
    if (next.language) return languageRef.current?.focus()
    if (next.clip || !clip || !checked.tag) return clipRef.current?.focus()

    setProgress(0)
    try {
      const consent = await createConsent(
        {
          name: name.trim(),
          language: checked.tag,
          recording: { blob: clip.blob, filename: clip.filename },
          transcript: transcript.trim() || undefined,
        },
        { onProgress: (p) => setProgress(p.total > 0 ? p.loaded / p.total : 0) },
      )
      setSaved(`Consent for “${consent.name}” saved. You can now create voices bound to it.`)
      setName('')
      setTranscript('')
      setClip(null)
      setErrors({})
      await refreshAfterChange(queryClient)
    } catch (err) {
      const f = describeFailure(err, 'consent')
      setFailure(f)
      if (f.field === 'name') focusLater(nameRef)
      else if (f.field === 'language') focusLater(languageRef)
      else if (f.field === 'transcript') focusLater(transcriptRef)
      else if (f.field === 'recording') focusLater(clipRef)
    } finally {
      setProgress(null)
    }
  }

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Record a consent</h2>
      <figure className="phrase">
        <figcaption id={`${id}-phrase-caption`}>
          The owner of the voice reads this sentence aloud, exactly as written, in one go:
        </figcaption>
        <blockquote lang="en" aria-describedby={`${id}-phrase-caption`}>
          {CONSENT_PHRASE}
        </blockquote>
      </figure>
      <form
        className="voice-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          if (!busy) void submit()
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-name`}>Name of the voice’s owner</label>
          <input
            ref={nameRef}
            id={`${id}-name`}
            value={name}
            maxLength={NAME_MAX_CHARS}
            autoComplete="off"
            disabled={busy}
            aria-invalid={errors.name ? true : undefined}
            aria-describedby={errors.name ? `${id}-name-error` : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          {errors.name && (
            <span id={`${id}-name-error`} className="field-error">
              {errors.name}
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor={`${id}-language`}>Language of the recording</label>
          <input
            ref={languageRef}
            id={`${id}-language`}
            value={language}
            autoComplete="off"
            spellCheck={false}
            disabled={busy}
            aria-invalid={errors.language ? true : undefined}
            aria-describedby={`${id}-language-hint${errors.language ? ` ${id}-language-error` : ''}`}
            onChange={(e) => setLanguage(e.target.value)}
            onBlur={() => {
              const checked = checkLanguageTag(language)
              if (checked.tag) setLanguage(checked.tag)
              setErrors((prev) => ({ ...prev, language: checked.problem ?? undefined }))
            }}
          />
          <span id={`${id}-language-hint`} className="hint">
            A language tag such as en-US, en-GB or de-DE.
          </span>
          {errors.language && (
            <span id={`${id}-language-error`} className="field-error">
              {errors.language}
            </span>
          )}
        </div>
        <div className="wide">
          <AudioInput
            legend="Consent recording"
            range={{ minSeconds: CONSENT_MIN_SECONDS, maxSeconds: CONSENT_MAX_SECONDS }}
            maxBytes={CONSENT_RECORDING_MAX_BYTES}
            basename="consent"
            clip={clip}
            onClip={(next) => {
              setClip(next)
              setErrors((prev) => ({ ...prev, clip: undefined }))
            }}
            disabled={busy}
            error={errors.clip}
            firstControlRef={clipRef}
          />
        </div>
        <div className="field wide">
          <label htmlFor={`${id}-transcript`}>Transcript (optional)</label>
          <textarea
            ref={transcriptRef}
            id={`${id}-transcript`}
            rows={2}
            value={transcript}
            disabled={busy}
            aria-describedby={`${id}-transcript-hint`}
            onChange={(e) => setTranscript(e.target.value)}
          />
          <span id={`${id}-transcript-hint`} className="hint">
            Leave empty and the service listens to the recording to check the phrase. Fill it in (with the
            phrase as spoken) only when the service cannot recognize speech.
          </span>
        </div>
        <div className="wide">
          {progress !== null && <UploadProgressBar fraction={progress} checking="Checking the recording…" />}
          {failure && <FailureMessage failure={failure} />}
          <p aria-live="polite" className="success">
            {saved}
          </p>
          <div className="buttons">
            <button type="submit" aria-disabled={busy || undefined}>
              {busy ? 'Saving consent…' : 'Save consent'}
            </button>
          </div>
        </div>
      </form>
    </section>
  )
}
