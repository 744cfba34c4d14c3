import { LevelMeter } from './level-meter.ts'

/**
 * Recording from the microphone with MediaRecorder. The browser's voice processing (echo cancellation, noise
 * suppression, automatic gain) is switched off: it would change the voice that a consent or a voice sample is
 * meant to capture. A level meter listens to the same stream while recording.
 */

export const RECORDING_CONSTRAINTS: MediaTrackConstraints = {
  echoCancellation: false,
  noiseSuppression: false,
  autoGainControl: false,
  channelCount: 1,
}

/** Containers the speech service decodes, best first; the browser's own default is the fallback. */
const MIME_PREFERENCE = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/mp4']

export function pickMimeType(isSupported: (type: string) => boolean): string | undefined {
  return MIME_PREFERENCE.find((type) => isSupported(type))
}

/** A file extension for a recording's MIME type, so the uploaded file names its format. */
export function extensionFor(mimeType: string): string {
  const base = mimeType.split(';')[0]?.trim().toLowerCase() ?? ''
  const known: Record<string, string> = {
    'audio/webm': 'webm',
    'video/webm': 'webm',
    'audio/ogg': 'ogg',
    'audio/mp4': 'm4a',
    'audio/mpeg': 'mp3',
    'audio/wav': 'wav',
    'audio/x-wav': 'wav',
    'audio/flac': 'flac',
  }
  return known[base] ?? 'webm'
}

/** `m:ss.d`, for elapsed and total times. */
export function formatClock(ms: number): string {
  const tenths = Math.max(0, Math.floor(ms / 100))
  const minutes = Math.floor(tenths / 600)
  const seconds = Math.floor((tenths % 600) / 10)
  return `${minutes}:${String(seconds).padStart(2, '0')}.${tenths % 10}`
}

export interface DurationRange {
  minSeconds: number
  maxSeconds: number
}

/** Why a clip of `seconds` cannot be sent, in plain words; null when its length is fine or unknown. */
export function durationProblem(seconds: number | null, range: DurationRange): string | null {
  if (seconds === null) return null
  const shown = seconds.toFixed(1)
  if (seconds < range.minSeconds)
    return `The clip is ${shown} seconds long; it needs at least ${range.minSeconds} seconds. Record again and speak the whole text.`
  if (seconds > range.maxSeconds)
    return `The clip is ${shown} seconds long; it may be at most ${range.maxSeconds} seconds. Record again and stop soon after speaking, or trim the file.`
  return null
}

/** Why the microphone could not be opened, and what to do about it. */
export function microphoneProblem(err: unknown): string {
  const name = err instanceof DOMException || err instanceof Error ? err.name : ''
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'The browser did not allow the microphone. Allow microphone access for this site (the icon in the address bar), then press Record again; or upload a file instead.'
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No microphone was found. Connect one and press Record again, or upload a file instead.'
    case 'NotReadableError':
    case 'AbortError':
      return 'The microphone is in use by another program or could not be started. Close the other program and press Record again, or upload a file instead.'
    default:
      return typeof MediaRecorder === 'undefined'
        ? 'This browser cannot record audio. Upload a file instead.'
        : `The microphone could not be started (${(err as Error)?.message ?? 'unknown error'}). Upload a file instead.`
  }
}

/**
 * The length of an audio file in seconds, decoded by the browser; null when the browser cannot decode it (the
 * service may still accept it).
 */
export async function audioDuration(blob: Blob): Promise<number | null> {
  try {
    const context = new OfflineAudioContext(1, 1, 48_000)
    const decoded = await context.decodeAudioData(await blob.arrayBuffer())
    return decoded.duration
  } catch {
    return null
  }
}

export interface Recording {
  blob: Blob
  mimeType: string
  /** Measured from the recorder's start to its stop. */
  durationMs: number
  /** A file name that carries the format, for the upload. */
  filename: string
}

export interface RecorderOptions {
  /** The recording stops by itself after this long. */
  maxMs: number
  /** The name the recording's file gets, without extension. */
  basename?: string
}

/**
 * One recording from the microphone. `start` asks for the microphone (rejecting as getUserMedia does); `finished`
 * resolves once it stops, by `stop()` or on reaching `maxMs`. `meter` shows the input level meanwhile.
 */
export class Recorder {
  readonly finished: Promise<Recording>
  private startedAt = performance.now()
  private stoppedAt: number | null = null
  private limit: ReturnType<typeof setTimeout> | null = null
  private discarded = false

  private constructor(
    private readonly stream: MediaStream,
    private readonly recorder: MediaRecorder,
    readonly meter: LevelMeter,
    opts: RecorderOptions,
  ) {
    const chunks: Blob[] = []
    recorder.addEventListener('dataavailable', (event) => {
      if (event.data.size > 0) chunks.push(event.data)
    })
    this.finished = new Promise<Recording>((resolve, reject) => {
      recorder.addEventListener('stop', () => {
        this.stoppedAt ??= performance.now()
        this.release()
        const mimeType = recorder.mimeType || chunks[0]?.type || 'audio/webm'
        if (this.discarded) {
          reject(new DOMException('The recording was discarded.', 'AbortError'))
          return
        }
        resolve({
          blob: new Blob(chunks, { type: mimeType }),
          mimeType,
          durationMs: this.stoppedAt - this.startedAt,
          filename: `${opts.basename ?? 'recording'}.${extensionFor(mimeType)}`,
        })
      })
      recorder.addEventListener('error', (event) => {
        this.release()
        reject((event as ErrorEvent).error ?? new Error('The recorder failed.'))
      })
    })
    // The page may not wait for `finished`; a discarded recording must not surface as an unhandled rejection.
    this.finished.catch(() => undefined)
    recorder.addEventListener('start', () => {
      this.startedAt = performance.now()
    })
    recorder.start(250)
    this.limit = setTimeout(() => this.stop(), opts.maxMs)
  }

  static async start(opts: RecorderOptions): Promise<Recorder> {
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
      throw new DOMException('Recording is not supported here.', 'NotSupportedError')
    }
    const stream = await navigator.mediaDevices.getUserMedia({ audio: RECORDING_CONSTRAINTS })
    try {
      const mimeType = pickMimeType((type) => MediaRecorder.isTypeSupported(type))
      const recorder = new MediaRecorder(stream, mimeType ? { mimeType } : undefined)
      return new Recorder(stream, recorder, new LevelMeter(stream), opts)
    } catch (err) {
      for (const track of stream.getTracks()) track.stop()
      throw err
    }
  }

  get recording(): boolean {
    return this.recorder.state === 'recording'
  }

  elapsedMs(): number {
    return (this.stoppedAt ?? performance.now()) - this.startedAt
  }

  /** Stops and resolves with the recording. */
  stop(): Promise<Recording> {
    if (this.recorder.state !== 'inactive') {
      this.stoppedAt = performance.now()
      this.recorder.stop()
    }
    return this.finished
  }

  /** Stops and throws the recording away (leaving the page, switching to upload). */
  discard(): void {
    this.discarded = true
    if (this.recorder.state !== 'inactive') this.recorder.stop()
    else this.release()
  }

  private release() {
    if (this.limit !== null) clearTimeout(this.limit)
    this.limit = null
    for (const track of this.stream.getTracks()) track.stop()
    void this.meter.close()
  }
}
