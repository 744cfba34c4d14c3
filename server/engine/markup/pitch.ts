/**
 * A YIN pitch tracker (de Cheveigné & Kawahara, 2002), small enough to read: the listening tests use it to prove that
 * emotion prosody actually moves the fundamental frequency eSpeak produces, and the sound tests use its periodicity.
 */

export interface PitchFrame {
  /** Fundamental frequency in Hz, or null when the frame is unvoiced or silent. */
  hz: number | null
  /** Quieter than the silence threshold: neither voiced nor unvoiced speech. */
  silent: boolean
}

export interface PitchOptions {
  minHz?: number
  maxHz?: number
  /** Frames quieter than this RMS (full scale 1) count as silent. */
  silenceRms?: number
}

const FRAME_SECONDS = 0.04
const HOP_SECONDS = 0.01
/** A frame is voiced when its best normalized difference is under 0.25, i.e. at least 75% periodic. */
const MAX_APERIODICITY = 0.25

export function trackPitch(pcm: Int16Array, sampleRate: number, opts: PitchOptions = {}): PitchFrame[] {
  const { minHz = 60, maxHz = 600, silenceRms = 0.01 } = opts
  const size = Math.round(FRAME_SECONDS * sampleRate)
  const hop = Math.round(HOP_SECONDS * sampleRate)
  const minLag = Math.floor(sampleRate / maxHz)
  const maxLag = Math.min(Math.ceil(sampleRate / minHz), size - 1)
  const window = size - maxLag
  const frames: PitchFrame[] = []
  const diff = new Float64Array(maxLag + 1)

  for (let start = 0; start + size <= pcm.length; start += hop) {
    let energy = 0
    for (let i = start; i < start + size; i++) energy += ((pcm[i] ?? 0) / 32768) ** 2
    if (Math.sqrt(energy / size) < silenceRms) {
      frames.push({ hz: null, silent: true })
      continue
    }
    // Difference function, normalized by its running mean so that lag 0 cannot win.
    let runningSum = 0
    let bestLag = -1
    let bestValue = Number.POSITIVE_INFINITY
    for (let lag = 1; lag <= maxLag; lag++) {
      let d = 0
      for (let i = start; i < start + window; i++) {
        const delta = (pcm[i] ?? 0) - (pcm[i + lag] ?? 0)
        d += delta * delta
      }
      runningSum += d
      diff[lag] = runningSum > 0 ? (d * lag) / runningSum : 1
      if (lag >= minLag && (diff[lag] ?? 1) < bestValue) {
        bestValue = diff[lag] ?? 1
        bestLag = lag
      }
    }
    // YIN's absolute threshold: the first dip under 0.15 beats a deeper dip at a multiple of the period.
    for (let lag = minLag; lag <= maxLag; lag++) {
      if ((diff[lag] ?? 1) < 0.15) {
        while (lag + 1 <= maxLag && (diff[lag + 1] ?? 1) < (diff[lag] ?? 1)) lag++
        bestLag = lag
        bestValue = diff[lag] ?? 1
        break
      }
    }
    const hz = bestValue <= MAX_APERIODICITY ? sampleRate / refineLag(diff, bestLag, maxLag) : null
    frames.push({ hz, silent: false })
  }
  return frames
}

/** Parabolic interpolation around the chosen lag for sub-sample precision. */
function refineLag(diff: Float64Array, lag: number, maxLag: number): number {
  if (lag <= 1 || lag >= maxLag) return lag
  const a = diff[lag - 1] ?? 0
  const b = diff[lag] ?? 0
  const c = diff[lag + 1] ?? 0
  const denominator = a - 2 * b + c
  return denominator === 0 ? lag : lag + (a - c) / (2 * denominator)
}

export interface PitchSummary {
  /** Median F0 of voiced frames in Hz (NaN when nothing is voiced). */
  medianHz: number
  /** Spread of F0 in semitones between the 10th and 90th percentile: the audible pitch range. */
  rangeSemitones: number
  /** Share of non-silent frames that are voiced. */
  voicedShare: number
}

export function summarizePitch(frames: PitchFrame[]): PitchSummary {
  const voiced = frames.flatMap((f) => (f.hz === null ? [] : [f.hz])).sort((a, b) => a - b)
  const sounding = frames.filter((f) => !f.silent).length
  const at = (q: number) => voiced[Math.min(voiced.length - 1, Math.floor(q * voiced.length))] ?? Number.NaN
  return {
    medianHz: at(0.5),
    rangeSemitones: 12 * Math.log2(at(0.9) / at(0.1)),
    voicedShare: sounding === 0 ? 0 : voiced.length / sounding,
  }
}
