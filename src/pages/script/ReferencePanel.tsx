import { type DragEvent, useEffect, useId, useRef, useState } from 'react'
import { formatBytes } from '../../../core/bytes.ts'
import {
  MAX_REFERENCE_BYTES,
  sniffFormat,
  UPLOAD_FORMAT_NAMES,
  UPLOAD_FORMATS_IN_WORDS,
  type UploadFormat,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
} from '../../../schema/index.ts'
import { audioDuration, formatClock, microphoneProblem, Recorder } from '../../audio/recorder.ts'
import { InputLevel } from '../../components/InputLevel.tsx'
import { useObjectUrl } from '../../components/useObjectUrl.ts'
import { useRecordingMeter } from '../../components/useRecordingMeter.ts'
import './reference.css'

/** A line's reference clip (contract 4.2): the voice of one request, sent with it and never saved. */
export interface Reference {
  blob: Blob
  filename: string
  /** The exact words spoken in the clip; when given, the service does not transcribe it. */
  transcript?: string
  format: UploadFormat
}

export type ReferenceCheck = { ok: true; format: UploadFormat } | { ok: false; message: string }

/**
 * Whether the service will take `file` as a reference clip, judged as it judges: its size against the 10 MiB limit,
 * then its format from its bytes (never its name), by the service's own sniffer. Nothing is sent.
 */
export async function checkReference(file: Blob, name: string): Promise<ReferenceCheck> {
  if (file.size === 0)
    return { ok: false, message: `${name} is empty. Choose another file or record a clip.` }
  if (file.size > MAX_REFERENCE_BYTES) {
    return {
      ok: false,
      message: `${name} is ${formatBytes(file.size)} (${file.size.toLocaleString('en')} bytes); a reference clip may be at most ${formatBytes(MAX_REFERENCE_BYTES)}. Use a shorter clip, or a compressed format such as MP3, OGG or WebM.`,
    }
  }
  const format = sniffFormat(new Uint8Array(await file.arrayBuffer()))
  if (!format) {
    return {
      ok: false,
      message: `${name} is not an audio file the service reads. Use ${UPLOAD_FORMATS_IN_WORDS}.`,
    }
  }
  return { ok: true, format }
}

const ACCEPT = 'audio/*,.wav,.mp3,.ogg,.oga,.opus,.aac,.flac,.webm,.m4a,.mp4'

/**
 * Attach a reference clip to a line: choose a file (the keyboard's way), drop one on the panel, or record one with a
 * live level meter. A clip is checked before it is attached, so nothing the service would refuse for its size or
 * format is ever sent. The attached clip shows its name, size and length, plays back, and can be removed; its words
 * may be given so the service need not transcribe them.
 */
export function ReferencePanel({
  value,
  onChange,
  disabled = false,
}: {
  value: Reference | null
  onChange: (ref: Reference | null) => void
  disabled?: boolean
}) {
  const id = useId()
  const [problem, setProblem] = useState<string | null>(null)
  const [checking, setChecking] = useState(false)
  const [dragging, setDragging] = useState(false)
  const [recorder, setRecorder] = useState<Recorder | null>(null)
  const [starting, setStarting] = useState(false)
  const [announcement, setAnnouncement] = useState('')
  const [length, setLength] = useState<{ blob: Blob; seconds: number | null } | null>(null)
  const fileRef = useRef<HTMLInputElement>(null)
  const meterRef = useRef<HTMLMeterElement>(null)
  const { elapsedMs, setElapsedMs, levelWord } = useRecordingMeter(recorder, meterRef)
  const blob = value?.blob ?? null
  const url = useObjectUrl(blob)
  const seconds = length && length.blob === blob ? length.seconds : null
  const recording = recorder !== null
  // Not while checking: disabling the focused file field would drop keyboard focus.
  const inactive = disabled || recording

  // The attached clip's length, when this browser can decode it (the service may read formats it cannot).
  useEffect(() => {
    if (!blob) return
    let current = true
    void audioDuration(blob).then((s) => {
      if (current) setLength({ blob, seconds: s })
    })
    return () => {
      current = false
    }
  }, [blob])

  async function attach(clip: Blob, filename: string) {
    setProblem(null)
    setChecking(true)
    const check = await checkReference(clip, filename)
    setChecking(false)
    if (fileRef.current) fileRef.current.value = ''
    if (!check.ok) {
      setProblem(check.message)
      return
    }
    // A new clip's words are not the old clip's: the transcript starts empty.
    onChange({ blob: clip, filename, format: check.format })
    setAnnouncement(`Reference clip attached: ${filename}, ${formatBytes(clip.size)}.`)
  }

  async function startRecording() {
    setProblem(null)
    setStarting(true)
    let started: Recorder
    try {
      started = await Recorder.start({ maxMs: VOICE_SAMPLE_MAX_SECONDS * 1000, basename: 'reference' })
    } catch (err) {
      setProblem(microphoneProblem(err))
      return
    } finally {
      setStarting(false)
    }
    setElapsedMs(0)
    setRecorder(started)
    setAnnouncement('Recording. Press Stop recording when done.')
    started.finished.then(
      (recording) => {
        setRecorder(null)
        void attach(recording.blob, recording.filename)
      },
      (err: unknown) => {
        setRecorder(null)
        if ((err as DOMException)?.name !== 'AbortError') setProblem(microphoneProblem(err))
      },
    )
  }

  function remove() {
    onChange(null)
    setProblem(null)
    setAnnouncement('Reference clip removed.')
    // The Remove button goes away with the clip; focus stays in the panel.
    fileRef.current?.focus()
  }

  function onDrop(e: DragEvent) {
    e.preventDefault()
    setDragging(false)
    const dropped = e.dataTransfer.files[0]
    if (dropped && !inactive) void attach(dropped, dropped.name)
  }

  return (
    <section className="reference-panel" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Reference clip</h3>
      <p className="hint" id={`${id}-hint`}>
        The line is spoken in the voice of this clip, for this request only; it is never saved. Use{' '}
        {VOICE_SAMPLE_MIN_SECONDS} to {VOICE_SAMPLE_MAX_SECONDS} seconds of one person speaking clearly with
        little noise: {UPLOAD_FORMATS_IN_WORDS}, at most {formatBytes(MAX_REFERENCE_BYTES)}.
      </p>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping is the mouse's way in; the file field is the keyboard's */}
      <div
        className={`dropzone${dragging ? ' dropzone-active' : ''}`}
        data-testid="reference-dropzone"
        onDragOver={(e) => {
          e.preventDefault()
          if (!inactive) setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p className="dropzone-hint">Drop an audio file here, choose one, or record.</p>
        <div className="field">
          <label htmlFor={`${id}-file`}>Reference clip file</label>
          <input
            ref={fileRef}
            id={`${id}-file`}
            type="file"
            accept={ACCEPT}
            disabled={inactive}
            aria-describedby={`${id}-hint${problem ? ` ${id}-problem` : ''}`}
            aria-invalid={problem ? true : undefined}
            onChange={(e) => {
              const file = e.target.files?.[0]
              if (file) void attach(file, file.name)
            }}
          />
        </div>
        <div className="recorder-row">
          <button
            type="button"
            className={recording ? 'recording' : undefined}
            disabled={disabled}
            aria-disabled={starting || undefined}
            onClick={() => {
              // Not `disabled` while the microphone opens: a disabled button would drop keyboard focus.
              if (starting) return
              if (recording) void recorder.stop()
              else void startRecording()
            }}
          >
            {recording ? 'Stop recording' : starting ? 'Starting…' : 'Record'}
          </button>
          <InputLevel id={`${id}-meter`} meterRef={meterRef} word={recording ? levelWord : null} />
          {recording && (
            <span className="elapsed">
              {formatClock(elapsedMs)} of at most {formatClock(VOICE_SAMPLE_MAX_SECONDS * 1000)}
            </span>
          )}
        </div>
        {checking && <p className="hint">Checking the clip…</p>}
      </div>

      {problem && (
        <p role="alert" id={`${id}-problem`} className="field-error">
          {problem}
        </p>
      )}

      {value && (
        <div className="attached">
          <p className="clip-facts">
            <strong>{value.filename}</strong>
            {' · '}
            {UPLOAD_FORMAT_NAMES[value.format]}
            {' · '}
            {formatBytes(value.blob.size)}
            {seconds !== null && ` · ${formatClock(seconds * 1000)}`}
          </p>
          <div className="buttons">
            {url && (
              // biome-ignore lint/a11y/useMediaCaption: the user's own reference clip; there is no caption to offer for it.
              <audio controls src={url} aria-label={`Play the reference clip ${value.filename}`} />
            )}
            <button type="button" onClick={remove} disabled={disabled}>
              Remove
            </button>
          </div>
          <div className="field">
            <label htmlFor={`${id}-transcript`}>Exact words spoken in the clip</label>
            <textarea
              id={`${id}-transcript`}
              rows={2}
              value={value.transcript ?? ''}
              disabled={disabled}
              aria-describedby={`${id}-transcript-hint`}
              onChange={(e) => onChange({ ...value, transcript: e.target.value })}
            />
            <span className="hint" id={`${id}-transcript-hint`}>
              Optional. When given, the service uses these words instead of transcribing the clip itself.
            </span>
          </div>
        </div>
      )}

      <p aria-live="polite" className="visually-hidden">
        {announcement}
      </p>
    </section>
  )
}
