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

export class PeriodStretcher {
  private readonly ahead = new Float32Array(STRETCH_LOOKAHEAD)
  private readonly insertion = new Float32Array(MAX_PERIOD)
  private period = 0
  /** Ring frames to play before the insertion begins (x[0, T)), then inserted frames still to play. */
  private beforeInsertion = 0
  private insertedLeft = 0
  /** Ring frames played since the last insertion was planned: the spacing that sets the stretch factor. */
  private playedSincePlan = Number.POSITIVE_INFINITY

  /** Whether an insertion is planned or under way. */
  get busy(): boolean {
    return this.beforeInsertion > 0 || this.insertedLeft > 0
  }

  /**
   * Whether another insertion keeps the audio since the last one within `factor` times its source length: after an
   * insertion of T frames, the next waits for T / (factor − 1) ring frames (at 2, back to back).
   */
  readyFor(factor: number): boolean {
    return !this.busy && factor > 1 && this.playedSincePlan * (factor - 1) >= this.period
  }

  /** Plans one insertion from the audio ahead in the ring; false (and nothing planned) when too little is there. */
  plan(ring: RingBuffer): boolean {
    if (this.busy || ring.peek(this.ahead) < STRETCH_LOOKAHEAD) return false
    const x = this.ahead
    const period = bestPeriod(x)
    for (let i = 0; i < period; i++) {
      const w = (i + 1) / (period + 1)
      this.insertion[i] = (1 - w) * (x[period + i] ?? 0) + w * (x[i] ?? 0)
    }
    this.period = period
    this.beforeInsertion = period
    this.insertedLeft = 0
    this.playedSincePlan = 0
    return true
  }

  /** An inserted sample due before the ring's next one, if the insertion's turn has come. */
  inserted(): number | undefined {
    if (this.insertedLeft === 0) return undefined
    const index = this.period - this.insertedLeft--
    return this.insertion[index]
  }

  /** The ring's next sample was played. */
  advance() {
    this.playedSincePlan++
    if (this.beforeInsertion > 0 && --this.beforeInsertion === 0) this.insertedLeft = this.period
  }

  reset() {
    this.period = 0
    this.beforeInsertion = 0
    this.insertedLeft = 0
    this.playedSincePlan = Number.POSITIVE_INFINITY
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
