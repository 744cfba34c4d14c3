/**
 * Reads a player's rendered output (the tap's recording) for what a listener hears of an underrun. The bench's source
 * has no exact zeros (bench/jitter.ts lifts them to one LSB), and both players render exact zeros only when they
 * have nothing to play, so a run of zeros between the first and the last sound is an underrun gap.
 */

/** A jump of more than this between neighbouring samples (-26 dBFS) at a gap's edge is counted as a click. */
export const CLICK_THRESHOLD = 0.05

/** Shorter runs of zeros may be a resampler's zero crossing; an underrun leaves at least this many. */
const MIN_GAP_FRAMES = 8

export interface OutputFigures {
  /** Gaps of silence inserted between the first and the last non-zero sample. */
  gaps: number
  /** Their total length. */
  silenceMs: number
  /** Gap edges (into or out of the silence) where the output jumps by more than the click threshold. */
  clicks: number
  /** First to last non-zero sample: the source's duration plus the silence inserted. */
  spanMs: number
}

export function analyseOutput(out: Float32Array, sampleRate: number, clickThreshold: number): OutputFigures {
  let first = 0
  while (first < out.length && out[first] === 0) first++
  let last = out.length - 1
  while (last > first && out[last] === 0) last--
  if (first >= out.length) return { gaps: 0, silenceMs: 0, clicks: 0, spanMs: 0 }

  let gaps = 0
  let silent = 0
  let clicks = 0
  let i = first
  while (i <= last) {
    if (out[i] !== 0) {
      i++
      continue
    }
    const start = i
    while (i <= last && out[i] === 0) i++
    if (i - start < MIN_GAP_FRAMES) continue
    gaps++
    silent += i - start
    // The jump into the gap is the last sample before it; the jump out is the first sample after it.
    if (Math.abs(out[start - 1] ?? 0) > clickThreshold) clicks++
    if (Math.abs(out[i] ?? 0) > clickThreshold) clicks++
  }
  const ms = (frames: number) => (frames / sampleRate) * 1000
  return { gaps, silenceMs: ms(silent), clicks, spanMs: ms(last - first + 1) }
}
