import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useMemo, useRef, useState } from 'react'
import {
  NAME_MAX_CHARS,
  VOICE_SAMPLE_MAX_BYTES,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
} from '../../../schema/index.ts'
import { capacityDelayMs } from '../../api/capacity-retry.ts'
import { type AudioUpload, createVoice } from '../../api/client.ts'
import { type AudioClip, AudioInput } from './AudioInput.tsx'
import { describeFailure, type Failure, isCreationBusy } from './failures.ts'
import { shortId, VOICE_CREATION_RETRY } from './format.ts'
import { FailureMessage, UploadProgressBar, useDeferredFocus } from './parts.tsx'
import { refreshAfterChange, useConsents } from './queries.ts'

type Binding = 'consent' | 'extension'

interface VoiceInput {
  name: string
  sample: AudioUpload
  consent: string | null
  transcript?: string
}

interface FieldErrors {
  name?: string
  consent?: string
  clip?: string
}

/** Waiting to try a busy creation again: which attempt comes next, and when. */
interface Waiting {
  attempt: number
  at: number
}

/**
 * Create a saved voice from a sample, bound to a consent (the speaker must match) or in the extension form. A busy
 * service (429) is retried by itself with exponential backoff, visibly, with Retry now and Cancel.
 */
export function VoiceForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const consents = useConsents()
  const [name, setName] = useState('')
  const [binding, setBinding] = useState<Binding>('consent')
  const [consentId, setConsentId] = useState('')
  const [transcript, setTranscript] = useState('')
  const [clip, setClip] = useState<AudioClip | null>(null)
  const [errors, setErrors] = useState<FieldErrors>({})
  const [failure, setFailure] = useState<Failure | null>(null)
  const [progress, setProgress] = useState<number | null>(null)
  const [waiting, setWaiting] = useState<Waiting | null>(null)
  const [now, setNow] = useState(() => Date.now())
  const [announcement, setAnnouncement] = useState('')
  const retryTimer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const pending = useRef<VoiceInput | null>(null)
  const nameRef = useRef<HTMLInputElement>(null)
  const consentRef = useRef<HTMLSelectElement>(null)
  const clipRef = useRef<HTMLButtonElement | HTMLInputElement>(null)
  const transcriptRef = useRef<HTMLTextAreaElement>(null)
  const submitRef = useRef<HTMLButtonElement>(null)
  const busy = progress !== null || waiting !== null
  const focusLater = useDeferredFocus(busy)

  const all = useMemo(() => consents.data?.pages.flatMap((page) => page.data) ?? [], [consents.data])
  // A consent that was revoked meanwhile cannot stay chosen.
  useEffect(() => {
    if (consentId && consents.isSuccess && !all.some((c) => c.id === consentId)) setConsentId('')
  }, [consentId, consents.isSuccess, all])

  useEffect(() => {
    if (!waiting) return
    const tick = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(tick)
  }, [waiting])
  useEffect(
    () => () => {
      if (retryTimer.current) clearTimeout(retryTimer.current)
    },
    [],
  )

  function clearRetry() {
    if (retryTimer.current) clearTimeout(retryTimer.current)
    retryTimer.current = null
    setWaiting(null)
  }

  async function attempt(input: VoiceInput, number: number) {
    clearRetry()
    setProgress(0)
    try {
      const voice = await createVoice(input, {
        onProgress: (p) => setProgress(p.total > 0 ? p.loaded / p.total : 0),
      })
      pending.current = null
      setAnnouncement(
        `Voice “${voice.name}” saved${input.consent ? '' : ' without a consent'}. It is now in the list below and in the script page’s voice picker.`,
      )
      setName('')
      setTranscript('')
      setClip(null)
      await refreshAfterChange(queryClient)
    } catch (err) {
      if (isCreationBusy(err) && number < VOICE_CREATION_RETRY.maxAttempts) {
        const delay = capacityDelayMs(number, err.retryAfterSeconds, Math.random, VOICE_CREATION_RETRY)
        setNow(Date.now())
        setWaiting({ attempt: number + 1, at: Date.now() + delay })
        setAnnouncement(
          `The service is busy creating other voices. Trying again by itself in ${Math.ceil(delay / 1000)} seconds.`,
        )
        retryTimer.current = setTimeout(() => void attempt(input, number + 1), delay)
        return
      }
      pending.current = null
      const f = isCreationBusy(err)
        ? {
            what: `The service stayed busy creating other voices through ${VOICE_CREATION_RETRY.maxAttempts} attempts.`,
            next: 'Try again in a few minutes.',
          }
        : describeFailure(err, 'voice')
      setFailure(f)
      if (f.field === 'name') focusLater(nameRef)
      else if (f.field === 'consent') focusLater(consentRef)
      else if (f.field === 'sample') focusLater(clipRef)
      else if (f.field === 'transcript') focusLater(transcriptRef)
    } finally {
      setProgress(null)
    }
  }

  function submit() {
    setFailure(null)
    setAnnouncement('')
    const next: FieldErrors = {
      name: name.trim() ? undefined : 'Enter a name for the voice.',
      consent:
        binding === 'consent' && !consentId
          ? all.length === 0
            ? 'There is no consent yet: record one above, or choose the extension form.'
            : 'Choose the consent of the person in the sample.'
          : undefined,
      clip: !clip ? 'Record a sample or choose a file first.' : (clip.problem ?? undefined),
    }
    setErrors(next)
    if (next.name) return nameRef.current?.focus()
    if (next.consent) return consentRef.current?.focus()
    if (next.clip || !clip) return clipRef.current?.focus()
    const input: VoiceInput = {
      name: name.trim(),
      sample: { blob: clip.blob, filename: clip.filename },
      consent: binding === 'consent' ? consentId : null,
      transcript: transcript.trim() || undefined,
    }
    pending.current = input
    void attempt(input, 1)
  }

  const secondsLeft = waiting ? Math.max(0, Math.ceil((waiting.at - now) / 1000)) : 0

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Create a saved voice</h2>
      <form
        className="voice-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          if (!busy) submit()
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-name`}>Voice name</label>
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
        <fieldset className="binding" disabled={busy}>
          <legend>Consent</legend>
          <label>
            <input
              type="radio"
              name={`${id}-binding`}
              checked={binding === 'consent'}
              onChange={() => setBinding('consent')}
            />
            Bound to a consent (the sample’s speaker must match it)
          </label>
          <label>
            <input
              type="radio"
              name={`${id}-binding`}
              checked={binding === 'extension'}
              onChange={() => {
                setBinding('extension')
                setErrors((prev) => ({ ...prev, consent: undefined }))
              }}
            />
            No consent (extension form)
          </label>
          {binding === 'consent' && (
            <div className="field">
              <label htmlFor={`${id}-consent`}>Consent of the person in the sample</label>
              <select
                ref={consentRef}
                id={`${id}-consent`}
                value={consentId}
                aria-invalid={errors.consent ? true : undefined}
                aria-describedby={errors.consent ? `${id}-consent-error` : undefined}
                onChange={(e) => {
                  setConsentId(e.target.value)
                  setErrors((prev) => ({ ...prev, consent: undefined }))
                }}
              >
                <option value="">{consents.isPending ? 'Loading consents…' : 'Choose a consent…'}</option>
                {all.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} ({c.language}, {shortId(c.id)})
                  </option>
                ))}
              </select>
              {errors.consent && (
                <span id={`${id}-consent-error`} className="field-error">
                  {errors.consent}
                </span>
              )}
            </div>
          )}
        </fieldset>
        <div className="wide">
          <AudioInput
            legend="Voice sample"
            range={{ minSeconds: VOICE_SAMPLE_MIN_SECONDS, maxSeconds: VOICE_SAMPLE_MAX_SECONDS }}
            maxBytes={VOICE_SAMPLE_MAX_BYTES}
            basename="sample"
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
          <label htmlFor={`${id}-transcript`}>Transcript of the sample (optional)</label>
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
            The exact words of the sample. Leave empty and the service transcribes it itself.
          </span>
        </div>
        <div className="wide">
          {progress !== null && <UploadProgressBar fraction={progress} checking="Preparing the voice…" />}
          {waiting && (
            <div className="busy-retry">
              <p>
                The service is busy creating other voices. Trying again in {secondsLeft} second
                {secondsLeft === 1 ? '' : 's'} (attempt {waiting.attempt} of{' '}
                {VOICE_CREATION_RETRY.maxAttempts}).
              </p>
              <div className="buttons">
                <button
                  type="button"
                  onClick={() => {
                    submitRef.current?.focus()
                    if (pending.current) void attempt(pending.current, waiting.attempt)
                  }}
                >
                  Retry now
                </button>
                <button
                  type="button"
                  onClick={() => {
                    submitRef.current?.focus()
                    clearRetry()
                    pending.current = null
                    setAnnouncement('Saving the voice was cancelled.')
                  }}
                >
                  Cancel
                </button>
              </div>
            </div>
          )}
          {failure && <FailureMessage failure={failure} />}
          <p aria-live="polite" className="success">
            {announcement}
          </p>
          <div className="buttons">
            <button ref={submitRef} type="submit" aria-disabled={busy || undefined}>
              {busy ? 'Saving voice…' : 'Save voice'}
            </button>
          </div>
        </div>
      </form>
    </section>
  )
}
