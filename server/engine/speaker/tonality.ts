/**
 * The two signs of music a consent screen looks for. Sustained tones: a note keeps its partials at fixed frequencies
 * for hundreds of milliseconds; speech moves its harmonics with the pitch and breaks them at every consonant, so
 * its spectral peaks rarely stay on one frequency for long. A beat: music that holds few steady notes (drums, plucked
 * or synthesised bass, distorted leads) still puts its onsets on a regular pulse, which speech, whose syllables come
 * four or five a second at irregular spacing, does not.
 */
import { binHz, FRAMES_PER_SECOND, type FrameFeatures, SPECTRUM_BINS } from './features.ts'

/** Partials are looked for from here up: a speaker's fundamental and first harmonics can stay level for a while. */
const LOWEST_HZ = 400
const HIGHEST_HZ = 5000
/** A peak stands this far above the median of the bins around it. */
const PROMINENCE_DB = 6
const NEIGHBOURHOOD_BINS = 8
/** A partial counts as sustained once it has held its frequency this long. */
const SUSTAIN_SECONDS = 0.4
/**
 * How far a held partial may drift from the frequency it started at: a note holds its pitch to well within a semitone
 * (6%), while a voice glides. A bin (31 Hz) is too coarse to tell them apart at the third harmonic of a low voice
 * read in a monotone (469 Hz: 7% a bin), so the peak's frequency is interpolated within its bin. 5% is the largest
 * whole percentage at which no real one-person clip holds sustained tones (they came from one FSDD speaker's digits,
 * near 156 Hz); real music keeps the same share of tonal excerpts from 5% to 10% (bench/voices-real.ts).
 */
const MAX_DRIFT = 0.05
/** Frames with at least this many sustained partials are tonal. */
const PARTIALS_PER_TONAL_FRAME = 1

/**
 * The share of sounding frames (those louder than `gateDb`) that carry sustained partials, 0…1. Speech stays under a
 * few percent; a chord or a held note fills almost every frame.
 */
export function sustainedToneShare(features: FrameFeatures, gateDb: number): number {
  const { count, power, energyDb } = features
  const low = Math.ceil(LOWEST_HZ / binHz(1))
  const high = Math.min(SPECTRUM_BINS - NEIGHBOURHOOD_BINS - 1, Math.floor(HIGHEST_HZ / binHz(1)))
  const sustain = Math.round(SUSTAIN_SECONDS * FRAMES_PER_SECOND)
  // How long the peak at each bin has held, and the frequency it started at: it may wobble, not glide away.
  let held = new Int32Array(SPECTRUM_BINS)
  let next = new Int32Array(SPECTRUM_BINS)
  let origin = new Float64Array(SPECTRUM_BINS)
  let nextOrigin = new Float64Array(SPECTRUM_BINS)
  const sustainedFrames = new Int32Array(count)
  const logPower = new Float64Array(SPECTRUM_BINS)
  const around = new Float64Array(2 * NEIGHBOURHOOD_BINS + 1)
  for (let f = 0; f < count; f++) {
    next.fill(0)
    for (let k = 0; k < SPECTRUM_BINS; k++)
      logPower[k] = 10 * Math.log10((power[f * SPECTRUM_BINS + k] as number) + 1e-12)
    for (let k = low; k <= high; k++) {
      const value = logPower[k] as number
      if (value < (logPower[k - 1] as number) || value < (logPower[k + 1] as number)) continue
      for (let j = -NEIGHBOURHOOD_BINS; j <= NEIGHBOURHOOD_BINS; j++)
        around[j + NEIGHBOURHOOD_BINS] = logPower[k + j] as number
      around.sort()
      if (value - (around[NEIGHBOURHOOD_BINS] as number) < PROMINENCE_DB) continue
      // The peak's frequency in bins, from a parabola through the log powers around it.
      const [left, right] = [logPower[k - 1] as number, logPower[k + 1] as number]
      const curvature = left - 2 * value + right
      const bin = k + (curvature < 0 ? (0.5 * (left - right)) / curvature : 0)
      let before = 0
      nextOrigin[k] = bin
      for (const j of [k, k - 1, k + 1]) {
        const start = origin[j] as number
        // Within a bin of where it started, and within MAX_DRIFT of its frequency then.
        if (
          (held[j] as number) > before &&
          Math.abs(Math.round(start) - k) <= 1 &&
          Math.abs(bin / start - 1) <= MAX_DRIFT
        ) {
          before = held[j] as number
          nextOrigin[k] = start
        }
      }
      next[k] = before + 1
      // The frames a partial has held so far are sustained frames too, once it reaches the length.
      const from = before + 1 === sustain ? f - sustain + 1 : before + 1 > sustain ? f : f + 1
      for (let back = from; back <= f; back++) sustainedFrames[back] = (sustainedFrames[back] as number) + 1
    }
    ;[held, next] = [next, held]
    ;[origin, nextOrigin] = [nextOrigin, origin]
  }
  let sounding = 0
  let tonal = 0
  for (let f = 0; f < count; f++) {
    if ((energyDb[f] as number) < gateDb) continue
    sounding++
    if ((sustainedFrames[f] as number) >= PARTIALS_PER_TONAL_FRAME) tonal++
  }
  return sounding === 0 ? 0 : tonal / sounding
}

/** Tempi from 200 down to 40 beats a minute: the pulse of nearly all music (Scheirer 1998). */
const SHORTEST_BEAT_SECONDS = 0.3
const LONGEST_BEAT_SECONDS = 1.5

/**
 * How regular the clip's onsets are at a musical tempo, 0…1: the highest normalised autocorrelation, at a lag of one
 * beat of 40–200 per minute, of its onset strength (spectral flux: the summed rise of each bin's log power from one
 * frame to the next, after its mean is taken away). The standard first step of tempo estimation (Scheirer 1998,
 * "Tempo and beat analysis of acoustic musical signals", JASA 103(1); Ellis 2007, "Beat tracking by dynamic
 * programming", J. New Music Research 36(1)). A steady beat approaches 1; speech stays under about 0.45.
 */
export function beatStrength(features: FrameFeatures): number {
  const { count, power } = features
  const onset = new Float64Array(count)
  let previous = new Float64Array(SPECTRUM_BINS)
  let current = new Float64Array(SPECTRUM_BINS)
  for (let f = 0; f < count; f++) {
    let rise = 0
    for (let k = 1; k < SPECTRUM_BINS; k++) {
      current[k] = Math.log10((power[f * SPECTRUM_BINS + k] as number) + 1e-10)
      if (f > 0) rise += Math.max(0, (current[k] as number) - (previous[k] as number))
    }
    onset[f] = rise
    ;[previous, current] = [current, previous]
  }
  const mean = onset.reduce((total, x) => total + x, 0) / Math.max(1, count)
  for (let f = 0; f < count; f++) onset[f] = (onset[f] as number) - mean
  const lagged = (lag: number) => {
    let sum = 0
    for (let f = 0; f + lag < count; f++) sum += (onset[f] as number) * (onset[f + lag] as number)
    return sum
  }
  const energy = lagged(0)
  if (energy <= 0) return 0
  let strongest = 0
  const longest = Math.min(count - 1, Math.round(LONGEST_BEAT_SECONDS * FRAMES_PER_SECOND))
  for (let lag = Math.round(SHORTEST_BEAT_SECONDS * FRAMES_PER_SECOND); lag <= longest; lag++)
    strongest = Math.max(strongest, lagged(lag) / energy)
  return strongest
}
