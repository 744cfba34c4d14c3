/**
 * Integrated loudness after ITU-R BS.1770-4 (K-weighting, 400 ms blocks with 75 % overlap, absolute gate at −70 LUFS
 * and relative gate 10 LU below), shared by the speech service (whole-utterance normalization), the studio (each
 * take's loudness, measured as it is stored) and the page (A/B matched by loudness).
 */

import { type BiquadCoefficients, filtered, highPass, highShelf } from './biquad.ts'

/** The two K-weighting stages: the standard's reference filter fitted as RBJ forms (biquad.ts). */
function kWeighting(rate: number): BiquadCoefficients[] {
  return [highShelf(rate, 1500, 4), highPass(rate, 38, 0.5)]
}

const loudnessOf = (meanSquare: number) => -0.691 + 10 * Math.log10(meanSquare)

/**
 * Integrated loudness in LUFS of mono samples (PCM16, or floats in −1…1 with `scale` 1), or −Infinity for silence
 * or audio shorter than one block.
 */
export function integratedLoudness(
  samples: ArrayLike<number>,
  rate: number,
  scale = samples instanceof Int16Array ? 1 / 32768 : 1,
): number {
  let weighted: Float64Array = Float64Array.from(samples, (s) => s * scale)
  for (const stage of kWeighting(rate)) weighted = filtered(weighted, stage)
  const block = Math.round(0.4 * rate)
  const step = Math.round(0.1 * rate)
  const powers: number[] = []
  for (let start = 0; start + block <= weighted.length; start += step) {
    let sum = 0
    for (let i = start; i < start + block; i++) sum += (weighted[i] ?? 0) ** 2
    powers.push(sum / block)
  }
  const aboveAbsolute = powers.filter((p) => loudnessOf(p) > -70)
  if (aboveAbsolute.length === 0) return Number.NEGATIVE_INFINITY
  const mean = (ps: number[]) => ps.reduce((s, p) => s + p, 0) / ps.length
  const relativeGate = loudnessOf(mean(aboveAbsolute)) - 10
  const gated = aboveAbsolute.filter((p) => loudnessOf(p) > relativeGate)
  return loudnessOf(mean(gated))
}

/** No take is lifted by more than this to match another: a near-silent take would otherwise be made to roar. */
export const MAX_MATCH_GAIN_DB = 24

/**
 * Linear gains that make two takes play at the same loudness: the louder is turned down to the quieter (never up
 * past its own level, so matching cannot clip), the lift capped at MAX_MATCH_GAIN_DB. Either loudness unknown or
 * unmeasurable (null, ±Infinity): both play as they are.
 */
export function matchedGains(a: number | null, b: number | null): { a: number; b: number } {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b)) return { a: 1, b: 1 }
  const target = Math.min(a, b)
  const gain = (own: number) => 10 ** (Math.max(-MAX_MATCH_GAIN_DB, target - own) / 20)
  return { a: gain(a), b: gain(b) }
}
