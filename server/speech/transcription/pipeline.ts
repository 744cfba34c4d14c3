import type { Diarizer, SpeakerCount, SpeakerSpan } from '../../engine/diarization/diarizer.ts'
import {
  groupSegments,
  type RecognizedWord,
  type Recognizer,
  type Transcription,
} from '../../engine/recognition/index.ts'
import {
  createStreamingVad,
  type SpeechRegion,
  type StreamingVad,
  type VadEvent,
} from '../../engine/vad/index.ts'
import {
  type Chunk,
  DEFAULT_PIECES,
  type Pause,
  type PauseSource,
  pausesBetween,
  planChunks,
  type SampleRange,
} from './chunks.ts'
import { buildDiarization, failedDiarization } from './diarization.ts'
import type { TranscriptParts } from './transcript-formats.ts'

export const RATE = 16_000
/** Chunks recognized at once per upload (the recognizer runs one subprocess per chunk, two at most overall). */
const CHUNKS_AHEAD = 2
/** No transcript segment is longer than this (seconds): the recognition pieces' cap (docs/transcription.md). */
export const SEGMENT_CAP_SECONDS = DEFAULT_PIECES.maxSeconds

export interface PipelineOptions {
  recognizer: Recognizer
  /** Present when the upload asked for diarization. */
  diarize?: { diarizer: Diarizer; count: SpeakerCount }
  signal: AbortSignal
  /** Called with each piece of text as soon as its chunk is recognized (stream=true). */
  onText?: (delta: string) => void
  /** Where the diarizer's failure goes (logs); the request still succeeds with the `diarization_failed` warning. */
  onDiarizationError?: (err: unknown) => void
  /**
   * The audio's speech regions, for where to cut it (tests); by default Silero VAD runs over the audio progressively,
   * ahead of recognition. A detector that fails leaves cuts by energy alone.
   */
  detectSpeech?: (audio: Float32Array, signal: AbortSignal) => Promise<SpeechRegion[]>
  /** Where the detector's failure goes (logs). */
  onVadError?: (err: unknown) => void
}

/**
 * Recognition of a whole upload (16 kHz mono float), with diarization alongside when asked for. The audio is cut in
 * pauses into pieces of at most 10 s (chunks.ts), grouped into chunks recognized one decoder run each; the recognizer
 * ends an utterance at every piece boundary. Words keep the file's clock; segments are the words of one piece
 * grouped at pauses, so none is longer than a piece.
 */
export async function transcribeAudio(audio: Float32Array, opts: PipelineOptions): Promise<TranscriptParts> {
  const diarized = opts.diarize ? runDiarizer(audio, opts) : undefined
  // A failure of recognition must not leave the diarizer running.
  diarized?.catch(() => {})
  const words: RecognizedWord[] = []
  let text = ''
  const chunks = planChunks(audio, RATE, pauseSource(audio, opts))
  const pieces: SampleRange[] = []
  // Up to CHUNKS_AHEAD chunks are recognized at once; their text is still emitted in order.
  const pending: Array<{ chunk: Chunk; result: Promise<Transcription> }> = []
  const startNext = async () => {
    const next = await chunks.next()
    if (next.done) return
    const chunk = next.value
    pieces.push(...chunk.pieces)
    const result = opts.recognizer.transcribe(audio.subarray(chunk.start, chunk.end), {
      signal: opts.signal,
      boundaries: chunk.pieces.slice(1).map((p) => (p.start - chunk.start) / RATE),
    })
    // A chunk that fails after an earlier one already failed must not surface as an unhandled rejection.
    result.catch(() => {})
    pending.push({ chunk, result })
  }
  try {
    for (let i = 0; i < CHUNKS_AHEAD; i++) await startNext()
    for (let i = 0; i < pending.length; i++) {
      const { chunk, result: running } = pending[i] as (typeof pending)[number]
      const result = await running
      opts.signal.throwIfAborted()
      await startNext()
      const offset = chunk.start / RATE
      for (const w of result.words) words.push({ ...w, start: w.start + offset, end: w.end + offset })
      const piece = result.text.trim()
      if (piece) {
        const delta = text ? ` ${piece}` : piece
        text += delta
        opts.onText?.(delta)
      }
    }
  } finally {
    await chunks.return(undefined)
  }
  const segments = segmentsOf(words, pieces)
  const parts: TranscriptParts = { text, segments, words, duration: audio.length / RATE, warnings: [] }
  if (diarized) {
    const spans = await diarized
    const result = spans ? buildDiarization(segments, spans) : failedDiarization()
    parts.diarization = result.diarization
    parts.warnings.push(...result.warnings)
  }
  return parts
}

/**
 * Where the pauses are: the given detector's regions, or Silero VAD fed the audio a second at a time as far as the
 * chunk planner asks. A detector that fails (its model cannot load) is reported once and leaves no pauses, so the
 * cuts fall at the quietest points; an abort is passed on.
 */
function pauseSource(audio: Float32Array, opts: PipelineOptions): PauseSource {
  const duration = audio.length / RATE
  let failed = false
  const fail = (err: unknown): Pause[] => {
    if (opts.signal.aborted) throw err
    if (!failed) opts.onVadError?.(err)
    failed = true
    return []
  }
  if (opts.detectSpeech) {
    const regions = opts.detectSpeech(audio, opts.signal)
    // Read only when a chunk is planned (never for empty audio): a failure must not go unhandled meanwhile.
    regions.catch(() => {})
    return {
      pausesUntil: async () => {
        if (failed) return []
        try {
          return pausesBetween(await regions, duration)
        } catch (err) {
          return fail(err)
        }
      },
    }
  }
  let vad: Promise<StreamingVad> | undefined
  let fed = 0
  let flushed = false
  const regions: SpeechRegion[] = []
  let open: number | null = null
  const apply = (events: readonly VadEvent[]) => {
    for (const e of events) {
      if (e.type === 'start') open = e.time
      else {
        regions.push({ start: open ?? 0, end: e.time })
        open = null
      }
    }
  }
  return {
    async pausesUntil(seconds) {
      if (failed) return []
      try {
        vad ??= createStreamingVad({ minSilenceSeconds: 0.1 })
        const v = await vad
        const target = Math.min(audio.length, Math.ceil(seconds * RATE))
        while (fed < target) {
          opts.signal.throwIfAborted()
          const next = Math.min(target, fed + RATE)
          apply(await v.push(audio.subarray(fed, next)))
          fed = next
        }
        if (fed === audio.length && !flushed) {
          apply(await v.flush())
          flushed = true
        }
      } catch (err) {
        return fail(err)
      }
      const known = fed / RATE
      return pausesBetween(open === null ? regions : [...regions, { start: open, end: known }], known)
    },
  }
}

/**
 * Transcript segments: each piece's words grouped at pauses, and at the cap by word boundary should a recognizer
 * put a word's times outside its piece. A word belongs to the piece holding its middle.
 */
export function segmentsOf(
  words: readonly RecognizedWord[],
  pieces: readonly SampleRange[],
): TranscriptParts['segments'] {
  const segments: Array<TranscriptParts['segments'][number]> = []
  let p = 0
  let group: RecognizedWord[] = []
  const flush = () => {
    for (const s of groupSegments(group, { maxSegmentSeconds: SEGMENT_CAP_SECONDS })) {
      segments.push({ start: s.start, end: s.end, text: s.text, words: s.words })
    }
    group = []
  }
  for (const w of words) {
    const middle = ((w.start + w.end) / 2) * RATE
    while (p + 1 < pieces.length && middle >= (pieces[p] as SampleRange).end) {
      p++
      flush()
    }
    group.push(w)
  }
  flush()
  return segments
}

async function runDiarizer(audio: Float32Array, opts: PipelineOptions): Promise<SpeakerSpan[] | null> {
  const { diarizer, count } = opts.diarize as NonNullable<PipelineOptions['diarize']>
  try {
    return await diarizer.diarize(audio, { ...count, signal: opts.signal })
  } catch (err) {
    if (opts.signal.aborted) throw err
    opts.onDiarizationError?.(err)
    return null
  }
}
