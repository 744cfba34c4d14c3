/**
 * Whole-utterance loudness normalization to a target, measured by the BS.1770 meter in core/loudness.ts. Streaming output cannot do this:
 * it needs the whole utterance before the first sample leaves, which is what `stream: false` allows.
 */

import { integratedLoudness } from '../../core/loudness.ts'

export const TARGET_LUFS = -16
/** Normalization never lifts a sample above this peak: the limiter below holds louder peaks down. */
export const PEAK_CEILING_DBFS = -1
const LOOKAHEAD_SECONDS = 0.003
const RELEASE_SECONDS = 0.06

/**
 * Per-sample gain that keeps |x·gain| under `ceiling`: the needed reduction is held over a short look-ahead window,
 * eased in backwards (so it is in place before the peak arrives) and released slowly, which avoids clicks and
 * pumping on speech.
 */
function limiterGain(x: Float64Array, ceiling: number, rate: number): Float64Array {
  const n = x.length
  const need = Float64Array.from(x, (v) => Math.min(1, ceiling / Math.max(Math.abs(v), 1e-9)))
  const w = Math.max(1, Math.round(LOOKAHEAD_SECONDS * rate))
  const held = new Float64Array(n).fill(1)
  for (let i = 0; i < n; i++) {
    const v = need[i] ?? 1
    if (v >= 1) continue
    for (let j = Math.max(0, i - w); j <= Math.min(n - 1, i + w); j++) held[j] = Math.min(held[j] ?? 1, v)
  }
  const release = 1 - Math.exp(-1 / (RELEASE_SECONDS * rate))
  const attack = 1 - Math.exp(-1 / (w / 2))
  const gain = new Float64Array(n)
  let g = 1
  for (let i = 0; i < n; i++) {
    const h = held[i] ?? 1
    g = h < g ? h : g + (h - g) * release
    gain[i] = g
  }
  for (let i = n - 2; i >= 0; i--) {
    const next = gain[i + 1] ?? 1
    const own = gain[i] ?? 1
    if (next < own) gain[i] = own + (next - own) * attack
  }
  return gain
}

/**
 * A copy of the utterance at `target` LUFS with its peaks limited to the ceiling. Limiting lowers the loudness a
 * little, so the gain is measured again (three passes converge within 0.2 LU on speech).
 */
export function normalizeLoudness(pcm: Int16Array, rate: number, target = TARGET_LUFS): Int16Array {
  const ceiling = 10 ** (PEAK_CEILING_DBFS / 20)
  let signal = Float64Array.from(pcm, (s) => s / 32768)
  for (let pass = 0; pass < 3; pass++) {
    const loudness = integratedLoudness(toPcm(signal), rate)
    if (!Number.isFinite(loudness)) break
    const makeUp = 10 ** ((target - loudness) / 20)
    const lifted = signal.map((v) => v * makeUp)
    const gain = limiterGain(lifted, ceiling, rate)
    signal = lifted.map((v, i) => v * (gain[i] ?? 1))
  }
  return toPcm(signal)
}

function toPcm(signal: Float64Array): Int16Array {
  return Int16Array.from(signal, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))))
}
