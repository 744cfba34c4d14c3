/**
 * The pieces of the GMM-UBM speaker embedder (gmm-embedder.ts), after Reynolds, Quatieri & Dunn (2000) and
 * Campbell, Sturim & Reynolds (2006):
 *
 * - a narrowband cepstral front end (mel bands 100–3800 Hz, so 8 kHz telephone audio and 16 kHz microphones are
 *   described alike) over the voiced frames of a clip, with deltas;
 * - per-clip cepstral mean and variance normalisation (CMVN): a fixed microphone and room colour add a constant to
 *   every frame's cepstrum, which the clip's own mean removes (Atal 1974; Viikki & Laurila 1998);
 * - a diagonal Gaussian mixture fitted to many voices (the universal background model) by EM;
 * - per clip, the mixture's means adapted towards the clip by MAP with a relevance factor, and the shifts stacked
 *   into a supervector scaled by √weight / σ, so that the cosine of two supervectors approximates the KL divergence
 *   between the two adapted models.
 */
import { cosineSimilarity } from './embedder.ts'
import { binHz, SPECTRUM_BINS } from './features.ts'
import type { SpeechTrack } from './statistics.ts'

const BANDS = 24
const LOW_HZ = 100
const HIGH_HZ = 3800
export const GMM_CEPSTRA = 16
/** Cepstra and their deltas. */
export const GMM_FEATURES = 2 * GMM_CEPSTRA
const DELTA_SPAN = 2
const POWER_FLOOR = 1e-10
/** MAP relevance factor: a component moves halfway to the clip after this many of its frames. */
const RELEVANCE = 16

export interface Ubm {
  weights: ArrayLike<number>
  /** `components × GMM_FEATURES`. */
  means: ArrayLike<number>
  variances: ArrayLike<number>
}

export const componentsOf = (ubm: Ubm) => ubm.weights.length

interface Filter {
  first: number
  weights: Float64Array
}
const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700)
const hz = (m: number) => 700 * (10 ** (m / 2595) - 1)
const filters: Filter[] = Array.from({ length: BANDS }, (_, b) => {
  const edge = (i: number) => hz(mel(LOW_HZ) + ((mel(HIGH_HZ) - mel(LOW_HZ)) * i) / (BANDS + 1))
  const [left, centre, right] = [edge(b), edge(b + 1), edge(b + 2)]
  const first = Math.max(1, Math.ceil(left / binHz(1)))
  const last = Math.min(SPECTRUM_BINS - 1, Math.floor(right / binHz(1)))
  const weights = new Float64Array(Math.max(1, last - first + 1))
  for (let k = first; k <= last; k++) {
    const f = binHz(k)
    weights[k - first] = Math.max(
      0,
      f <= centre ? (f - left) / (centre - left) : (right - f) / (right - centre),
    )
  }
  return { first, weights }
})
const dct = Float64Array.from({ length: GMM_CEPSTRA * BANDS }, (_, i) => {
  const c = Math.floor(i / BANDS) + 1
  const b = i % BANDS
  return Math.sqrt(2 / BANDS) * Math.cos((Math.PI * c * (b + 0.5)) / BANDS)
})

/**
 * The normalised features (`frames × GMM_FEATURES`) of the frames of `track` in `[from, to)` marked in `track.voiced`,
 * or null when fewer than `minFrames` are voiced.
 */
export function clipFeatures(track: SpeechTrack, minFrames: number, from = 0, to = track.features.count) {
  const features = voicedCepstra(track, minFrames, from, to)
  if (features) normalizeColumns(features.values, features.count)
  return features
}

/** The cepstra and deltas of the voiced frames in `[from, to)` before any normalisation (see clipFeatures). */
export function voicedCepstra(track: SpeechTrack, minFrames: number, from = 0, to = track.features.count) {
  const { power } = track.features
  const frames: number[] = []
  for (let f = Math.max(0, from); f < Math.min(to, track.features.count); f++)
    if (track.voiced[f]) frames.push(f)
  if (frames.length < Math.max(2, minFrames)) return null
  // Cepstra of every frame in range (deltas need the neighbours), kept for the voiced ones.
  const first = Math.max(0, from)
  const span = Math.min(to, track.features.count) - first
  const cep = new Float64Array(span * GMM_CEPSTRA)
  const bands = new Float64Array(BANDS)
  for (let i = 0; i < span; i++) {
    const row = (first + i) * SPECTRUM_BINS
    for (let b = 0; b < BANDS; b++) {
      const { first: k0, weights } = filters[b] as Filter
      let sum = 0
      for (let k = 0; k < weights.length; k++) sum += (weights[k] as number) * (power[row + k0 + k] as number)
      bands[b] = Math.log(sum + POWER_FLOOR)
    }
    for (let c = 0; c < GMM_CEPSTRA; c++) {
      let sum = 0
      for (let b = 0; b < BANDS; b++) sum += (dct[c * BANDS + b] as number) * (bands[b] as number)
      cep[i * GMM_CEPSTRA + c] = sum
    }
  }
  let norm = 0
  for (let k = 1; k <= DELTA_SPAN; k++) norm += 2 * k * k
  const out = new Float64Array(frames.length * GMM_FEATURES)
  frames.forEach((f, n) => {
    const i = f - first
    for (let c = 0; c < GMM_CEPSTRA; c++) {
      out[n * GMM_FEATURES + c] = cep[i * GMM_CEPSTRA + c] as number
      let d = 0
      for (let k = 1; k <= DELTA_SPAN; k++) {
        const later = cep[Math.min(span - 1, i + k) * GMM_CEPSTRA + c] as number
        const earlier = cep[Math.max(0, i - k) * GMM_CEPSTRA + c] as number
        d += k * (later - earlier)
      }
      out[n * GMM_FEATURES + GMM_CEPSTRA + c] = d / norm
    }
  })
  return { values: out, count: frames.length }
}

/** Mean 0 and variance 1 per feature over the clip's frames (CMVN). */
export function normalizeColumns(values: Float64Array, count: number): void {
  for (let d = 0; d < GMM_FEATURES; d++) {
    let sum = 0
    let squares = 0
    for (let n = 0; n < count; n++) {
      const x = values[n * GMM_FEATURES + d] as number
      sum += x
      squares += x * x
    }
    const mean = sum / count
    const sd = Math.sqrt(Math.max(1e-8, squares / count - mean * mean))
    for (let n = 0; n < count; n++)
      values[n * GMM_FEATURES + d] = ((values[n * GMM_FEATURES + d] as number) - mean) / sd
  }
}

/** Posterior of each component for one frame, into `out`; returns the frame's log-likelihood. */
function posteriors(
  ubm: Ubm,
  x: Float64Array,
  offset: number,
  out: Float64Array,
  consts: Float64Array,
): number {
  const components = componentsOf(ubm)
  let max = Number.NEGATIVE_INFINITY
  for (let c = 0; c < components; c++) {
    let e = consts[c] as number
    for (let d = 0; d < GMM_FEATURES; d++) {
      const diff = (x[offset + d] as number) - (ubm.means[c * GMM_FEATURES + d] as number)
      e -= (0.5 * diff * diff) / (ubm.variances[c * GMM_FEATURES + d] as number)
    }
    out[c] = e
    if (e > max) max = e
  }
  let total = 0
  for (let c = 0; c < components; c++) {
    const p = Math.exp((out[c] as number) - max)
    out[c] = p
    total += p
  }
  for (let c = 0; c < components; c++) out[c] = (out[c] as number) / total
  return max + Math.log(total)
}

function logConstants(ubm: Ubm): Float64Array {
  return Float64Array.from({ length: componentsOf(ubm) }, (_, c) => {
    let logDet = 0
    for (let d = 0; d < GMM_FEATURES; d++) logDet += Math.log(ubm.variances[c * GMM_FEATURES + d] as number)
    return Math.log(ubm.weights[c] as number) - 0.5 * logDet - 0.5 * GMM_FEATURES * Math.log(2 * Math.PI)
  })
}

/** Zeroth- and first-order statistics of frames against the background model (Baum–Welch statistics). */
interface Statistics {
  occupancy: Float64Array
  firstOrder: Float64Array
}

const emptyStatistics = (ubm: Ubm): Statistics => ({
  occupancy: new Float64Array(componentsOf(ubm)),
  firstOrder: new Float64Array(componentsOf(ubm) * GMM_FEATURES),
})

/** Adds row `n` of `values`, whose component posteriors are `gamma`, to `into` (`sign` −1 removes it). */
function accumulate(into: Statistics, values: Float64Array, n: number, gamma: Float64Array, sign = 1): void {
  for (let c = 0; c < gamma.length; c++) {
    const g = sign * (gamma[c] as number)
    if (Math.abs(g) < 1e-6) continue
    into.occupancy[c] = (into.occupancy[c] as number) + g
    for (let d = 0; d < GMM_FEATURES; d++) {
      const i = c * GMM_FEATURES + d
      into.firstOrder[i] = (into.firstOrder[i] as number) + g * (values[n * GMM_FEATURES + d] as number)
    }
  }
}

/** The background model's means adapted towards `statistics` by MAP, as shifts scaled by √w/σ. */
function adaptedShifts(ubm: Ubm, { occupancy, firstOrder }: Statistics, relevance: number): Float32Array {
  const components = componentsOf(ubm)
  const out = new Float32Array(components * GMM_FEATURES)
  for (let c = 0; c < components; c++) {
    const n = occupancy[c] as number
    // A component's occupancy after frames are taken away can be a rounding error above zero: nothing is left.
    if (n < 1e-6) continue
    const alpha = n / (n + relevance)
    const scale = Math.sqrt(ubm.weights[c] as number)
    for (let d = 0; d < GMM_FEATURES; d++) {
      const i = c * GMM_FEATURES + d
      const mean = ubm.means[i] as number
      const shift = alpha * ((firstOrder[i] as number) / n - mean)
      out[i] = (scale * shift) / Math.sqrt(ubm.variances[i] as number)
    }
  }
  return out
}

/** The component posteriors of every row of `features` (rows × components). */
function allPosteriors(ubm: Ubm, features: { values: Float64Array; count: number }): Float64Array {
  const components = componentsOf(ubm)
  const consts = logConstants(ubm)
  const out = new Float64Array(features.count * components)
  const gamma = new Float64Array(components)
  for (let n = 0; n < features.count; n++) {
    posteriors(ubm, features.values, n * GMM_FEATURES, gamma, consts)
    out.set(gamma, n * components)
  }
  return out
}

/** The MAP-adapted mean supervector of a clip's features, as shifts from the UBM scaled by √w/σ. */
export function supervector(
  ubm: Ubm,
  features: { values: Float64Array; count: number },
  relevance = RELEVANCE,
): Float32Array {
  const components = componentsOf(ubm)
  const consts = logConstants(ubm)
  const statistics = emptyStatistics(ubm)
  const gamma = new Float64Array(components)
  for (let n = 0; n < features.count; n++) {
    posteriors(ubm, features.values, n * GMM_FEATURES, gamma, consts)
    accumulate(statistics, features.values, n, gamma)
  }
  return adaptedShifts(ubm, statistics, relevance)
}

/**
 * A clip's supervector (as `supervector`) and the cosine similarity between those of its first and second halves
 * (how much one voice varies within the clip), from one pass of component posteriors: the halves' statistics add
 * up to the whole's.
 */
export function supervectorWithHalves(
  ubm: Ubm,
  features: { values: Float64Array; count: number },
  relevance = RELEVANCE,
): { vector: Float32Array; halves: number } {
  const components = componentsOf(ubm)
  const gammas = allPosteriors(ubm, features)
  const [first, second] = [emptyStatistics(ubm), emptyStatistics(ubm)]
  const middle = features.count >> 1
  for (let n = 0; n < features.count; n++)
    accumulate(
      n < middle ? first : second,
      features.values,
      n,
      gammas.subarray(n * components, (n + 1) * components),
    )
  const whole: Statistics = {
    occupancy: first.occupancy.map((x, c) => x + (second.occupancy[c] as number)),
    firstOrder: first.firstOrder.map((x, i) => x + (second.firstOrder[i] as number)),
  }
  return {
    vector: adaptedShifts(ubm, whole, relevance),
    halves: cosineSimilarity(adaptedShifts(ubm, first, relevance), adaptedShifts(ubm, second, relevance)),
  }
}

/** Where a clip's voice changes most, and how alike each side is to itself. */
export interface VoiceChange {
  /** Cosine similarity of the adapted supervectors before and after the split point where it is lowest. */
  across: number
  /** Mean cosine similarity between the two halves of each side of that split: how much one voice varies here. */
  within: number
}

/**
 * The split point (every `stepRows`, at least `minRows` rows on each side) where the adapted supervectors of the
 * rows before and after it are least alike, or null when no split fits. The statistics are swept once, the rows
 * before a split added and taken from the rest, so a clip costs one pass of posteriors and two adaptations per
 * split point; then each side is halved and its halves compared, so that the change can be weighed against how
 * much the voice varies without one.
 */
export function voiceChange(
  ubm: Ubm,
  features: { values: Float64Array; count: number },
  options: { minRows: number; stepRows: number; relevance: number },
): VoiceChange | null {
  const { minRows, stepRows, relevance } = options
  if (features.count < 2 * minRows) return null
  const components = componentsOf(ubm)
  const gammas = allPosteriors(ubm, features)
  const gammaOf = (n: number) => gammas.subarray(n * components, (n + 1) * components)
  const before = emptyStatistics(ubm)
  const after = emptyStatistics(ubm)
  for (let n = 0; n < features.count; n++) accumulate(after, features.values, n, gammaOf(n))
  let across = 1
  let at = minRows
  let moved = 0
  for (let split = minRows; split <= features.count - minRows; split += stepRows) {
    for (; moved < split; moved++) {
      accumulate(before, features.values, moved, gammaOf(moved))
      accumulate(after, features.values, moved, gammaOf(moved), -1)
    }
    const similarity = cosineSimilarity(
      adaptedShifts(ubm, before, relevance),
      adaptedShifts(ubm, after, relevance),
    )
    if (similarity < across) [across, at] = [similarity, split]
  }
  const adapted = (from: number, to: number) => {
    const statistics = emptyStatistics(ubm)
    for (let n = from; n < to; n++) accumulate(statistics, features.values, n, gammaOf(n))
    return adaptedShifts(ubm, statistics, relevance)
  }
  const halves = (from: number, to: number) =>
    cosineSimilarity(adapted(from, (from + to) >> 1), adapted((from + to) >> 1, to))
  return { across, within: (halves(0, at) + halves(at, features.count)) / 2 }
}

/**
 * A diagonal GMM of `components` fitted to `frames` (rows of GMM_FEATURES) by EM from a deterministic start:
 * frames picked at even spacing, split by k-means, then `iterations` of EM with a variance floor.
 */
export function trainUbm(frames: Float64Array, components: number, iterations = 12): Ubm {
  const count = frames.length / GMM_FEATURES
  const means = new Float64Array(components * GMM_FEATURES)
  for (let c = 0; c < components; c++) {
    const n = Math.floor(((c + 0.5) * count) / components)
    for (let d = 0; d < GMM_FEATURES; d++)
      means[c * GMM_FEATURES + d] = frames[n * GMM_FEATURES + d] as number
  }
  // k-means for a start.
  const assign = new Int32Array(count)
  for (let it = 0; it < 8; it++) {
    for (let n = 0; n < count; n++) {
      let best = 0
      let bestDistance = Number.POSITIVE_INFINITY
      for (let c = 0; c < components; c++) {
        let dist = 0
        for (let d = 0; d < GMM_FEATURES; d++)
          dist += ((frames[n * GMM_FEATURES + d] as number) - (means[c * GMM_FEATURES + d] as number)) ** 2
        if (dist < bestDistance) {
          bestDistance = dist
          best = c
        }
      }
      assign[n] = best
    }
    const sums = new Float64Array(components * GMM_FEATURES)
    const counts = new Float64Array(components)
    for (let n = 0; n < count; n++) {
      const c = assign[n] as number
      counts[c] = (counts[c] as number) + 1
      for (let d = 0; d < GMM_FEATURES; d++)
        sums[c * GMM_FEATURES + d] =
          (sums[c * GMM_FEATURES + d] as number) + (frames[n * GMM_FEATURES + d] as number)
    }
    for (let c = 0; c < components; c++) {
      if (!counts[c]) continue
      for (let d = 0; d < GMM_FEATURES; d++)
        means[c * GMM_FEATURES + d] = (sums[c * GMM_FEATURES + d] as number) / (counts[c] as number)
    }
  }
  const ubm = {
    weights: new Float64Array(components).fill(1 / components),
    means,
    variances: new Float64Array(components * GMM_FEATURES).fill(1),
  }
  const gamma = new Float64Array(components)
  for (let it = 0; it < iterations; it++) {
    const consts = logConstants(ubm)
    const occupancy = new Float64Array(components)
    const first = new Float64Array(components * GMM_FEATURES)
    const second = new Float64Array(components * GMM_FEATURES)
    for (let n = 0; n < count; n++) {
      posteriors(ubm, frames, n * GMM_FEATURES, gamma, consts)
      for (let c = 0; c < components; c++) {
        const g = gamma[c] as number
        if (g < 1e-8) continue
        occupancy[c] = (occupancy[c] as number) + g
        for (let d = 0; d < GMM_FEATURES; d++) {
          const x = frames[n * GMM_FEATURES + d] as number
          const i = c * GMM_FEATURES + d
          first[i] = (first[i] as number) + g * x
          second[i] = (second[i] as number) + g * x * x
        }
      }
    }
    for (let c = 0; c < components; c++) {
      const n = Math.max(1e-3, occupancy[c] as number)
      ubm.weights[c] = n / count
      for (let d = 0; d < GMM_FEATURES; d++) {
        const i = c * GMM_FEATURES + d
        const mean = (first[i] as number) / n
        ubm.means[i] = mean
        ubm.variances[i] = Math.max(0.01, (second[i] as number) / n - mean * mean)
      }
    }
  }
  return ubm
}
