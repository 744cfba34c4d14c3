import type { RingBuffer } from './ring-buffer.ts'

/**
 * Playout stretching for the worklet: lengthens the audio about to play by one pitch period at a time, so a ring
 * running low lasts longer without a gap — WebRTC NetEq's "preemptive expand", and the time-domain harmonic scaling
 * it comes from (Malah, "Time-domain algorithms for harmonic bandwidth reduction and time scaling of speech signals",
 * IEEE Trans. ASSP 27(2), 1979). Voiced speech repeats itself every pitch period, so one period more is heard as the
 * syllable held a few milliseconds longer, at its own pitch; a gap is heard as a dropout.
 *
 * One insertion: in the audio ahead, x, find the lag T (2.5–15 ms at 24 kHz: voices from 67 to 400 Hz) at which x
 * best matches itself a period later, play x[0, T), then T inserted samples that fade from x[T, 2T) into x[0, T),
 * then x[T…] as if nothing happened. Both joins are continuous (the fade starts on x[T] and ends on x[T − 1]), and
 * the faded signals are one period apart, so they add in phase. Unvoiced sound and silence are lengthened by a
 * stretch of themselves, which is inaudible.
 */

/** Shortest and longest period searched, in 24 kHz frames. */
const MIN_PERIOD = 60
const MAX_PERIOD = 360
/** Frames compared at each lag. */
const MATCH_WINDOW = 360
/** Audio that must be in the ring ahead to plan an insertion: the window at the longest lag. */
export const STRETCH_LOOKAHEAD = MAX_PERIOD + MATCH_WINDOW

/**
 * Positions are the caller's count of ring frames played so far: it keeps that count anyway, so the stretcher
 * derives from it when an insertion is due rather than counting every frame itself.
 */
export class PeriodStretcher {
  private readonly ahead = new Float32Array(STRETCH_LOOKAHEAD)
  private readonly insertion = new Float32Array(MAX_PERIOD)
  private period = 0
  /** The position the last insertion was planned at; its inserted frames play once `period` ring frames have. */
  private plannedAt = Number.NEGATIVE_INFINITY
  private insertedSoFar = 0

  /** Whether an insertion is planned or under way at `position`. */
  busy(position: number): boolean {
    const since = position - this.plannedAt
    return since < this.period || (since === this.period && this.insertedSoFar < this.period)
  }

  /**
   * Whether another insertion keeps the audio since the last one within `factor` times its source length: after an
   * insertion of T frames, the next waits for T / (factor − 1) ring frames (at 2, back to back).
   */
  readyFor(factor: number, position: number): boolean {
    return factor > 1 && !this.busy(position) && (position - this.plannedAt) * (factor - 1) >= this.period
  }

  /** Plans one insertion from the audio ahead in the ring; false (and nothing planned) when too little is there. */
  plan(ring: RingBuffer, position: number): boolean {
    if (this.busy(position) || ring.peek(this.ahead) < STRETCH_LOOKAHEAD) return false
    const x = this.ahead
    const period = bestPeriod(x)
    for (let i = 0; i < period; i++) {
      const w = (i + 1) / (period + 1)
      this.insertion[i] = (1 - w) * (x[period + i] ?? 0) + w * (x[i] ?? 0)
    }
    this.period = period
    this.plannedAt = position
    this.insertedSoFar = 0
    return true
  }

  /** An inserted sample due before the ring's next one at `position`, if the insertion's turn has come. */
  inserted(position: number): number | undefined {
    if (position - this.plannedAt !== this.period || this.insertedSoFar === this.period) return undefined
    return this.insertion[this.insertedSoFar++]
  }

  reset() {
    this.period = 0
    this.plannedAt = Number.NEGATIVE_INFINITY
    this.insertedSoFar = 0
  }
}

/**
 * A peak this close to the best counts as the period: a wave that repeats every T also repeats every 2T, and with a
 * period that is not a whole number of frames the multiple can match a shade better. Inserting 2T would work as well,
 * but stretches in coarser steps.
 */
const OCTAVE_TOLERANCE = 0.05
const scores = new Float64Array(MAX_PERIOD + 1)

/** The lag at which `x` is most like itself (normalised cross-correlation); any lag will do for silence. */
export function bestPeriod(x: Float32Array): number {
  let energyHead = 0
  for (let i = 0; i < MATCH_WINDOW; i++) energyHead += (x[i] ?? 0) ** 2
  // The energy of x[T, T + window), slid along with T.
  let energyLag = 0
  for (let i = MIN_PERIOD; i < MIN_PERIOD + MATCH_WINDOW; i++) energyLag += (x[i] ?? 0) ** 2
  let bestScore = Number.NEGATIVE_INFINITY
  for (let lag = MIN_PERIOD; lag <= MAX_PERIOD; lag++) {
    let dot = 0
    for (let i = 0; i < MATCH_WINDOW; i++) dot += (x[i] ?? 0) * (x[lag + i] ?? 0)
    const score = dot / Math.sqrt(energyHead * energyLag + 1e-12)
    scores[lag] = score
    bestScore = Math.max(bestScore, score)
    energyLag += (x[lag + MATCH_WINDOW] ?? 0) ** 2 - (x[lag] ?? 0) ** 2
  }
  // The shortest lag at a peak within the tolerance of the best.
  for (let lag = MIN_PERIOD; lag <= MAX_PERIOD; lag++) {
    const score = scores[lag] ?? 0
    const peak = score >= (scores[lag - 1] ?? Number.NEGATIVE_INFINITY) && score >= (scores[lag + 1] ?? 0)
    if (score >= bestScore - OCTAVE_TOLERANCE && (peak || lag === MAX_PERIOD)) return lag
  }
  return MIN_PERIOD
}
