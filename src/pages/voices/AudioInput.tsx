import { type Ref, useEffect, useId, useRef, useState } from 'react'
import { formatBytes } from '../../../core/bytes.ts'
import {
  audioDuration,
  type DurationRange,
  durationProblem,
  formatClock,
  microphoneProblem,
  Recorder,
} from '../../audio/recorder.ts'
import { InputLevel } from '../../components/InputLevel.tsx'
import { useObjectUrl } from '../../components/useObjectUrl.ts'
import { useRecordingMeter } from '../../components/useRecordingMeter.ts'

/** A clip to upload: recorded here or chosen from disk, with its length when the browser could decode it. */
export interface AudioClip {
  blob: Blob
  filename: string
  seconds: number | null
  source: 'recorded' | 'uploaded'
  /** Why it cannot be sent (length, size); null when it can. */
  problem: string | null
}

type Mode = 'record' | 'upload'

const UPLOAD_ACCEPT = 'audio/*,.wav,.mp3,.ogg,.oga,.opus,.flac,.webm,.m4a,.mp4,.aac'

/**
 * Record in the browser (with a live level meter and elapsed time, stopping by itself at the longest allowed
 * length) or upload a file; then play the clip back before it is sent, or record again. The Record button is one
 * element that becomes Stop and then Record again, so keyboard focus stays on it throughout.
 */
export function AudioInput({
  legend,
  range,
  maxBytes,
  basename,
  clip,
  onClip,
  onReading,
  disabled = false,
  error,
  firstControlRef,
}: {
  legend: string
  range: DurationRange
  maxBytes: number
  basename: string
  clip: AudioClip | null
  onClip: (clip: AudioClip | null) => void
  /** A chosen file is being read (its length measured): true until its clip is given, or none is. */
  onReading?: (reading: boolean) => void
  disabled?: boolean
  /** A failure about this clip from the service, shown with it. */
  error?: string | null
  /** Focused when the form points at this clip. */
  firstControlRef?: Ref<HTMLButtonElement | HTMLInputElement>
}) {
  const id = useId()
  const [mode, setMode] = useState<Mode>('record')
  const [recorder, setRecorder] = useState<Recorder | null>(null)
  const [starting, setStarting] = useState(false)
  const [micError, setMicError] = useState<string | null>(null)
  const [announcement, setAnnouncement] = useState('')
  const meterRef = useRef<HTMLMeterElement>(null)
  const { elapsedMs, setElapsedMs, levelWord } = useRecordingMeter(recorder, meterRef)
  const fileRef = useRef<HTMLInputElement | null>(null)
  const choosing = useRef(false)
  const url = useObjectUrl(clip?.blob ?? null)

  // When the form clears the clip (it was sent), the file input lets go of its file too.
  useEffect(() => {
    if (!clip && !choosing.current && fileRef.current) fileRef.current.value = ''
  }, [clip])

  const maxMs = range.maxSeconds * 1000

  async function startRecording() {
    setMicError(null)
    onClip(null)
    setStarting(true)
    let started: Recorder
    try {
      started = await Recorder.start({ maxMs, basename })
    } catch (err) {
      setMicError(microphoneProblem(err))
      setStarting(false)
      return
    }
    setStarting(false)
    setElapsedMs(0)
    setRecorder(started)
    setAnnouncement('Recording. Press the button again to stop.')
    started.finished.then(
      async (recording) => {
        setRecorder(null)
        const decoded = await audioDuration(recording.blob)
        const seconds = decoded ?? recording.durationMs / 1000
        const problem = durationProblem(seconds, range) ?? sizeProblem(recording.blob.size, maxBytes)
        const atLimit = recording.durationMs >= maxMs - 50
        onClip({ blob: recording.blob, filename: recording.filename, seconds, source: 'recorded', problem })
        setAnnouncement(
          `${atLimit ? `Stopped at the ${range.maxSeconds}-second limit. ` : 'Stopped. '}Recorded ${seconds.toFixed(1)} seconds.${problem ? '' : ' Play it back below, or send it.'}`,
        )
      },
      (err: unknown) => {
        setRecorder(null)
        if ((err as DOMException)?.name !== 'AbortError') setMicError(microphoneProblem(err))
      },
    )
  }

  async function chooseFile(file: File | undefined) {
    choosing.current = true
    onReading?.(true)
    try {
      onClip(null)
      if (!file) return
      const tooBig = sizeProblem(file.size, maxBytes)
      const seconds = tooBig ? null : await audioDuration(file)
      const problem = tooBig ?? durationProblem(seconds, range)
      onClip({ blob: file, filename: file.name, seconds, source: 'uploaded', problem })
    } finally {
      choosing.current = false
      onReading?.(false)
    }
  }

  function switchMode(next: Mode) {
    recorder?.discard()
    setRecorder(null)
    setMicError(null)
    onClip(null)
    setMode(next)
  }

  const recording = recorder !== null
  const buttonLabel = recording
    ? 'Stop recording'
    : clip?.source === 'recorded'
      ? 'Record again'
      : starting
        ? 'Starting…'
        : 'Record'
  const problem = clip?.problem ?? null

  return (
    <fieldset className="audio-input" disabled={disabled}>
      <legend>{legend}</legend>
      <div className="mode-choice">
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'record'}
            onChange={() => switchMode('record')}
          />
          Record in the browser
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={mode === 'upload'}
            onChange={() => switchMode('upload')}
          />
          Upload a file
        </label>
      </div>

      {mode === 'record' ? (
        <div className="recorder">
          <p className="hint" id={`${id}-record-hint`}>
            Between {range.minSeconds} and {range.maxSeconds} seconds; recording stops by itself at{' '}
            {range.maxSeconds} seconds. The browser’s echo cancellation, noise suppression and automatic gain
            are off, so the voice is captured as it is.
          </p>
          <div className="recorder-row">
            <button
              ref={firstControlRef as Ref<HTMLButtonElement>}
              type="button"
              className={recording ? 'recording' : undefined}
              aria-describedby={`${id}-record-hint`}
              aria-disabled={starting || undefined}
              onClick={() => {
                // Not `disabled` while the microphone opens: a disabled button would drop keyboard focus.
                if (starting) return
                if (recording) void recorder.stop()
                else void startRecording()
              }}
            >
              {buttonLabel}
            </button>
            <InputLevel id={`${id}-meter`} meterRef={meterRef} word={recording ? levelWord : null} />
            <p className="elapsed" data-testid="elapsed">
              {recording
                ? `${formatClock(elapsedMs)} of at most ${formatClock(maxMs)}`
                : clip?.seconds != null
                  ? `Recorded ${formatClock(clip.seconds * 1000)}`
                  : 'Not recording'}
            </p>
          </div>
          {micError && (
            <p role="alert" className="field-error">
              {micError}
            </p>
          )}
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-file`}>Audio file</label>
          <input
            ref={(element) => {
              fileRef.current = element
              assignRef(firstControlRef as Ref<HTMLInputElement> | undefined, element)
            }}
            id={`${id}-file`}
            type="file"
            accept={UPLOAD_ACCEPT}
            aria-describedby={`${id}-file-hint`}
            onChange={(e) => void chooseFile(e.target.files?.[0])}
          />
          <span className="hint" id={`${id}-file-hint`}>
            WAV, MP3, OGG, FLAC, WebM or MP4; at most {formatBytes(maxBytes)}; between {range.minSeconds} and{' '}
            {range.maxSeconds} seconds.
          </span>
        </div>
      )}

      {clip && url && (
        <div className="playback">
          {/* biome-ignore lint/a11y/useMediaCaption: the user's own unsent clip; there is no caption to offer for it. */}
          <audio
            controls
            src={url}
            aria-label={`Play back the ${clip.source === 'recorded' ? 'recording' : 'file'}`}
          />
          <span>
            {clip.source === 'uploaded' ? `${clip.filename}, ${formatBytes(clip.blob.size)}` : ''}
            {clip.seconds != null && clip.source === 'uploaded' ? `, ${clip.seconds.toFixed(1)} seconds` : ''}
          </span>
        </div>
      )}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      {error && !problem && <p className="field-error">{error}</p>}
      <p aria-live="polite" className="visually-hidden">
        {announcement}
      </p>
    </fieldset>
  )
}

function assignRef<T>(ref: Ref<T> | undefined, value: T | null) {
  if (typeof ref === 'function') ref(value)
  else if (ref) (ref as { current: T | null }).current = value
}

function sizeProblem(bytes: number, maxBytes: number): string | null {
  if (bytes === 0) return 'The clip is empty. Record again or choose another file.'
  if (bytes > maxBytes)
    return `The file is ${formatBytes(bytes)}; at most ${formatBytes(maxBytes)} can be sent. Use a shorter clip or a compressed format such as MP3 or OGG.`
  return null
}
