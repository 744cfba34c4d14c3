import type { Diarizer, SpeakerCount, SpeakerSpan } from '../../engine/diarization/diarizer.ts'
import {
  groupSegments,
  type RecognizedWord,
  type Recognizer,
  type Transcription,
} from '../../engine/recognition/index.ts'
import { chunkAtPauses, DEFAULT_CHUNKS } from './chunks.ts'
import { buildDiarization, failedDiarization } from './diarization.ts'
import type { TranscriptParts } from './formats.ts'

export const RATE = 16_000
/** Chunks recognized at once per upload (the recognizer runs one subprocess per chunk, two at most overall). */
const CHUNKS_AHEAD = 2

export interface PipelineOptions {
  recognizer: Recognizer
  /** Present when the upload asked for diarization. */
  diarize?: { diarizer: Diarizer; count: SpeakerCount }
  signal: AbortSignal
  /** Called with each piece of text as soon as its chunk is recognized (stream=true). */
  onText?: (delta: string) => void
  /** Where the diarizer's failure goes (logs); the request still succeeds with the `diarization_failed` warning. */
  onDiarizationError?: (err: unknown) => void
}

/**
 * Recognition of a whole upload (16 kHz mono float), chunk by chunk at pauses, with diarization alongside when asked
 * for. Words keep the file's clock; segments are the recognizer's grouping of words at pauses.
 */
export async function transcribeAudio(audio: Float32Array, opts: PipelineOptions): Promise<TranscriptParts> {
  const diarized = opts.diarize ? runDiarizer(audio, opts) : undefined
  // A failure of recognition must not leave the diarizer running.
  diarized?.catch(() => {})
  const words: RecognizedWord[] = []
  let text = ''
  const chunks = chunkAtPauses(audio, RATE, DEFAULT_CHUNKS).filter((c) => c.end > c.start)
  // Up to CHUNKS_AHEAD chunks are recognized at once; their text is still emitted in order.
  const pending: Array<Promise<Transcription>> = []
  const startNext = () => {
    const chunk = chunks[pending.length]
    if (!chunk) return
    const result = opts.recognizer.transcribe(audio.subarray(chunk.start, chunk.end), { signal: opts.signal })
    // A chunk that fails after an earlier one already failed must not surface as an unhandled rejection.
    result.catch(() => {})
    pending.push(result)
  }
  for (let i = 0; i < CHUNKS_AHEAD; i++) startNext()
  for (let i = 0; i < chunks.length; i++) {
    const result = await (pending[i] as Promise<Transcription>)
    opts.signal.throwIfAborted()
    startNext()
    const offset = (chunks[i] as { start: number }).start / RATE
    for (const w of result.words) words.push({ ...w, start: w.start + offset, end: w.end + offset })
    const piece = result.text.trim()
    if (piece) {
      const delta = text ? ` ${piece}` : piece
      text += delta
      opts.onText?.(delta)
    }
  }
  const segments = groupSegments(words).map((s) => ({ start: s.start, end: s.end, text: s.text }))
  const parts: TranscriptParts = { text, segments, words, duration: audio.length / RATE, warnings: [] }
  if (diarized) {
    const spans = await diarized
    const result = spans ? buildDiarization(segments, spans) : failedDiarization()
    parts.diarization = result.diarization
    parts.warnings.push(...result.warnings)
  }
  return parts
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
