/**
 * Batch voice activity detection: where a 16 kHz recording holds speech, as regions in seconds.
 */
import { type GateOptions, SpeechGate } from './gate.ts'
import { SileroStream, VAD_CHUNK, VAD_CHUNK_SECONDS, VAD_SAMPLE_RATE } from './silero.ts'

export interface SpeechRegion {
  start: number
  end: number
}

export interface DetectOptions extends GateOptions {
  /** Widens each region on both sides (never past its neighbours): the model reacts a chunk late. Default 0.03 s. */
  padSeconds?: number
  signal?: AbortSignal
}

/** Speech probability of each 32 ms chunk of `audio`; the last, partial chunk is padded with silence. */
async function speechProbabilities(audio: Float32Array, signal?: AbortSignal): Promise<Float32Array> {
  const stream = await SileroStream.open()
  const chunks = Math.ceil(audio.length / VAD_CHUNK)
  const probabilities = new Float32Array(chunks)
  const chunk = new Float32Array(VAD_CHUNK)
  for (let i = 0; i < chunks; i++) {
    signal?.throwIfAborted()
    chunk.fill(0)
    chunk.set(audio.subarray(i * VAD_CHUNK, (i + 1) * VAD_CHUNK))
    probabilities[i] = await stream.probability(chunk)
  }
  return probabilities
}

/** Speech regions from chunk probabilities of a recording lasting `duration` seconds. */
function regionsFromProbabilities(
  probabilities: Float32Array,
  duration: number,
  opts: DetectOptions = {},
): SpeechRegion[] {
  const gate = new SpeechGate(opts)
  const events = []
  for (let i = 0; i < probabilities.length; i++) {
    const start = i * VAD_CHUNK_SECONDS
    events.push(
      ...gate.push(probabilities[i] as number, start, Math.min(duration, start + VAD_CHUNK_SECONDS)),
    )
  }
  events.push(...gate.finish(duration))
  const regions: SpeechRegion[] = []
  for (const event of events) {
    if (event.type === 'start') regions.push({ start: event.time, end: duration })
    else (regions.at(-1) as SpeechRegion).end = event.time
  }
  return pad(regions, opts.padSeconds ?? 0.03, duration)
}

export async function detectSpeech(audio: Float32Array, opts: DetectOptions = {}): Promise<SpeechRegion[]> {
  const probabilities = await speechProbabilities(audio, opts.signal)
  return regionsFromProbabilities(probabilities, audio.length / VAD_SAMPLE_RATE, opts)
}

/** Widens regions by `seconds`, splitting any gap narrower than twice that between the two regions beside it. */
function pad(regions: SpeechRegion[], seconds: number, duration: number): SpeechRegion[] {
  return regions.map((region, i) => {
    const previous = regions[i - 1]
    const next = regions[i + 1]
    const start = previous
      ? Math.max(region.start - seconds, (previous.end + region.start) / 2)
      : region.start - seconds
    const end = next ? Math.min(region.end + seconds, (region.end + next.start) / 2) : region.end + seconds
    return { start: Math.max(0, start), end: Math.min(duration, end) }
  })
}
