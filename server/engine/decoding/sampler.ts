/**
 * Sampling one token from a model's logits with the contract's decoding controls (2.8), in the contract's order: temperature,
 * then top_k, then top_p, then min_p, then one draw. Each filter sees the distribution the previous one left, so the
 * order matters (tested on distributions where it does).
 */
import { whiteNoise } from '../markup/dsp.ts'

export interface DecodingSettings {
  /** Divides the logits: below 1 sharpens, above 1 flattens; 0 or less means greedy. */
  temperature: number
  /** Keep the k likeliest tokens; 0 disables the filter. */
  top_k: number
  /** Keep the smallest set of likeliest tokens that holds this much probability; 1 disables the filter. */
  top_p: number
  /** Drop tokens whose probability is below this fraction of the likeliest one's; 0 disables the filter. */
  min_p: number
}

/** A source of uniform numbers in [0, 1). */
export type Random = () => number

/** A seeded generator (mulberry32, shared with the sound synthesis) for reproducible takes in tests. */
export function seededRandom(seed: number): Random {
  const noise = whiteNoise(seed)
  return () => Math.min((noise() + 1) / 2, 1 - Number.EPSILON)
}

/** Probabilities of logits; -Infinity is a removed token. */
export function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits)
  if (max === Number.NEGATIVE_INFINITY) throw new Error('Every token was filtered out.')
  const weights = logits.map((l) => Math.exp(l - max))
  const total = weights.reduce((a, w) => a + w, 0)
  return weights.map((w) => w / total)
}

/** Token indices from likeliest to least likely; ties keep the vocabulary's order, so filtering is deterministic. */
function ranked(logits: readonly number[]): number[] {
  return logits.map((_, i) => i).sort((a, b) => (logits[b] ?? 0) - (logits[a] ?? 0) || a - b)
}

const removed = Number.NEGATIVE_INFINITY

export function applyTemperature(logits: readonly number[], temperature: number): number[] {
  if (temperature > 0) return logits.map((l) => l / temperature)
  // Zero temperature is the limit of sharpening: only the likeliest token is left.
  const best = ranked(logits)[0]
  return logits.map((_, i) => (i === best ? 0 : removed))
}

export function topK(logits: readonly number[], k: number): number[] {
  if (k <= 0 || k >= logits.length) return [...logits]
  const keep = new Set(ranked(logits).slice(0, k))
  return logits.map((l, i) => (keep.has(i) ? l : removed))
}

export function topP(logits: readonly number[], p: number): number[] {
  if (p >= 1) return [...logits]
  const probs = softmax(logits)
  const keep = new Set<number>()
  let mass = 0
  for (const i of ranked(logits)) {
    if (logits[i] === removed) break
    keep.add(i)
    mass += probs[i] ?? 0
    // A small tolerance keeps a set whose mass equals p up to rounding from taking one token more.
    if (mass >= p - 1e-12) break
  }
  return logits.map((l, i) => (keep.has(i) ? l : removed))
}

export function minP(logits: readonly number[], fraction: number): number[] {
  if (fraction <= 0) return [...logits]
  const probs = softmax(logits)
  const threshold = fraction * Math.max(...probs)
  return logits.map((l, i) => ((probs[i] ?? 0) >= threshold ? l : removed))
}

/** The logits after every filter, in the contract's order. */
export function filterLogits(logits: readonly number[], settings: DecodingSettings): number[] {
  const tempered = applyTemperature(logits, settings.temperature)
  return minP(topP(topK(tempered, settings.top_k), settings.top_p), settings.min_p)
}

/** The distribution a draw is made from. */
export function decodingDistribution(logits: readonly number[], settings: DecodingSettings): number[] {
  return softmax(filterLogits(logits, settings))
}

/** One token index drawn from the filtered distribution. */
export function sampleToken(logits: readonly number[], settings: DecodingSettings, random: Random): number {
  const probs = decodingDistribution(logits, settings)
  let u = random()
  let last = 0
  for (const [i, p] of probs.entries()) {
    if (p === 0) continue
    last = i
    if (u < p) return i
    u -= p
  }
  // Rounding can leave u a hair above the total; the last kept token takes it.
  return last
}
