/**
 * Speaker statistics of a stretch of 16 kHz speech: the mean and spread of the MFCCs, the spread of their deltas and
 * the level and range of the voice's pitch, over voiced frames only. Vowels carry most of what tells one vocal tract
 * from another; silence, breath and fricatives only add noise. A track is analysed once and summarised over any
 * range of frames, so the diarizer can slide windows over a recording without analysing it again.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { allocateFeatures, CEPSTRA, computeFeatures, type FrameFeatures, frameCount } from './features.ts'
import { computePitch, type PitchTrack, VOICED_PERIODICITY } from './pitch.ts'

/** 19 MFCC means, 19 MFCC deviations, 19 delta deviations, median log F0, log F0 range. */
export const STATISTICS_DIMENSION = 3 * CEPSTRA + 2

/** Frames quieter than this under the recording's loud frames are background (a distant talker, room noise). */
const DYNAMIC_RANGE_DB = 45
/** …and frames this close to the recording's noise floor too. */
const FLOOR_MARGIN_DB = 6
/** Digital near-silence (about −70 dBFS) is never speech, whatever the recording's range. */
const ABSOLUTE_FLOOR_DB = -70
const DELTA_SPAN = 2

export interface SpeechTrack {
  features: FrameFeatures
  /** MFCC deltas (regression over ±2 frames), `count × CEPSTRA`. */
  delta: Float32Array
  /** F0 per frame, 0 when unvoiced. */
  pitchHz: Float32Array
  periodicity: Float32Array
  /** Energy in dB from which a frame is foreground sound rather than background. */
  gateDb: number
  /** 1 where the frame is loud enough and voiced: the frames that statistics are taken over. */
  voiced: Uint8Array
}

/** Frames analysed between two yields to the event loop: about 20 ms of work. */
const BLOCK_FRAMES = 500

export function analyzeSpeech(audio: Float32Array): SpeechTrack {
  const steps = analysisSteps(audio)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** The same analysis a block at a time, letting other work run in between; stops when `signal` aborts. */
export async function analyzeSpeechInSteps(audio: Float32Array, signal?: AbortSignal): Promise<SpeechTrack> {
  const steps = analysisSteps(audio)
  for (;;) {
    signal?.throwIfAborted()
    const step = steps.next()
    if (step.done) return step.value
    await yieldToEventLoop()
  }
}

function* analysisSteps(audio: Float32Array): Generator<void, SpeechTrack> {
  const count = frameCount(audio.length)
  const features = allocateFeatures(count)
  const pitch: PitchTrack = { hz: new Float32Array(count), periodicity: new Float32Array(count) }
  for (let from = 0; from < count; from += BLOCK_FRAMES) {
    const to = Math.min(count, from + BLOCK_FRAMES)
    computeFeatures(audio, features, from, to)
    computePitch(audio, pitch, from, to)
    yield
  }
  const gateDb = loudnessGate(features.energyDb)
  const voiced = new Uint8Array(count)
  for (let f = 0; f < count; f++) {
    voiced[f] =
      (features.energyDb[f] as number) >= gateDb && (pitch.periodicity[f] as number) >= VOICED_PERIODICITY
        ? 1
        : 0
  }
  return {
    features,
    delta: deltas(features.mfcc, count),
    pitchHz: pitch.hz,
    periodicity: pitch.periodicity,
    gateDb,
    voiced,
  }
}

/**
 * The statistics over the voiced frames in `[from, to)`, or null when fewer than `minFrames` of them are voiced.
 */
export function speakerStatistics(
  track: SpeechTrack,
  from: number,
  to: number,
  minFrames: number,
): Float64Array | null {
  const { mfcc } = track.features
  const sum = new Float64Array(CEPSTRA)
  const squares = new Float64Array(CEPSTRA)
  const deltaSquares = new Float64Array(CEPSTRA)
  const logPitch: number[] = []
  for (let f = Math.max(0, from); f < Math.min(to, track.features.count); f++) {
    if (!track.voiced[f]) continue
    for (let c = 0; c < CEPSTRA; c++) {
      const x = mfcc[f * CEPSTRA + c] as number
      const d = track.delta[f * CEPSTRA + c] as number
      sum[c] = (sum[c] as number) + x
      squares[c] = (squares[c] as number) + x * x
      deltaSquares[c] = (deltaSquares[c] as number) + d * d
    }
    logPitch.push(Math.log(track.pitchHz[f] as number))
  }
  const n = logPitch.length
  if (n < Math.max(1, minFrames)) return null
  const out = new Float64Array(STATISTICS_DIMENSION)
  for (let c = 0; c < CEPSTRA; c++) {
    const mean = (sum[c] as number) / n
    out[c] = mean
    out[CEPSTRA + c] = Math.sqrt(Math.max(0, (squares[c] as number) / n - mean * mean))
    out[2 * CEPSTRA + c] = Math.sqrt((deltaSquares[c] as number) / n)
  }
  logPitch.sort((a, b) => a - b)
  out[3 * CEPSTRA] = quantile(logPitch, 0.5)
  out[3 * CEPSTRA + 1] = quantile(logPitch, 0.9) - quantile(logPitch, 0.1)
  return out
}

/** The energy in dB a frame needs to count as foreground sound of this recording. */
function loudnessGate(energyDb: Float32Array): number {
  if (energyDb.length === 0) return ABSOLUTE_FLOOR_DB
  const sorted = Float32Array.from(energyDb).sort()
  const floor = quantile(sorted, 0.05)
  const loud = quantile(sorted, 0.98)
  return Math.max(ABSOLUTE_FLOOR_DB, floor + FLOOR_MARGIN_DB, loud - DYNAMIC_RANGE_DB)
}

function deltas(values: Float32Array, count: number): Float32Array {
  const out = new Float32Array(count * CEPSTRA)
  let norm = 0
  for (let k = 1; k <= DELTA_SPAN; k++) norm += 2 * k * k
  for (let f = 0; f < count; f++) {
    for (let c = 0; c < CEPSTRA; c++) {
      let sum = 0
      for (let k = 1; k <= DELTA_SPAN; k++) {
        const later = values[Math.min(count - 1, f + k) * CEPSTRA + c] as number
        const earlier = values[Math.max(0, f - k) * CEPSTRA + c] as number
        sum += k * (later - earlier)
      }
      out[f * CEPSTRA + c] = sum / norm
    }
  }
  return out
}

/** Value at fraction `q` of an ascending array (nearest rank). */
function quantile(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))] as number
}

/** A fixed standardisation of each statistic (population.ts): subtract `mean`, divide by `scale`. */
export interface Population {
  mean: ArrayLike<number>
  scale: ArrayLike<number>
}
