/**
 * Turns per-chunk speech probabilities into speech start and end events, with hysteresis as in Silero's own
 * `get_speech_timestamps`: speech begins at `threshold`, and ends only after the probability has stayed under
 * `negativeThreshold` for `minSilenceSeconds`; a burst shorter than `minSpeechSeconds` is never reported.
 */

export interface GateOptions {
  /** Probability from which a chunk starts speech. Default 0.5. */
  threshold?: number
  /** Probability under which a chunk counts towards silence. Default `threshold − 0.15`. */
  negativeThreshold?: number
  /** Speech must last this long before it is reported. Default 0.25 s. */
  minSpeechSeconds?: number
  /** Silence must last this long to end speech. Default 0.1 s. */
  minSilenceSeconds?: number
}

export interface VadEvent {
  type: 'start' | 'end'
  /** Seconds from the start of the stream: where speech began, or where the silence that ended it began. */
  time: number
}

type State = 'silence' | 'pending' | 'speech' | 'trailing'

export class SpeechGate {
  private readonly threshold: number
  private readonly negativeThreshold: number
  private readonly minSpeech: number
  private readonly minSilence: number
  private state: State = 'silence'
  private onset = 0
  private silenceStart = 0

  constructor(opts: GateOptions = {}) {
    this.threshold = opts.threshold ?? 0.5
    this.negativeThreshold = opts.negativeThreshold ?? Math.max(0.01, this.threshold - 0.15)
    this.minSpeech = opts.minSpeechSeconds ?? 0.25
    this.minSilence = opts.minSilenceSeconds ?? 0.1
  }

  /** The probability of the chunk that spans `[time, end)`; returns the events it causes. */
  push(probability: number, time: number, end: number): VadEvent[] {
    switch (this.state) {
      case 'silence':
        if (probability >= this.threshold) {
          this.state = 'pending'
          this.onset = time
          return this.confirm(end)
        }
        return []
      case 'pending':
        if (probability < this.negativeThreshold) {
          this.state = 'silence'
          return []
        }
        return this.confirm(end)
      case 'speech':
        if (probability < this.negativeThreshold) {
          this.state = 'trailing'
          this.silenceStart = time
          return this.expire(end)
        }
        return []
      case 'trailing':
        if (probability >= this.threshold) {
          this.state = 'speech'
          return []
        }
        return this.expire(end)
    }
  }

  /** The stream ended at `time`: closes speech still open. */
  finish(time: number): VadEvent[] {
    const state = this.state
    this.state = 'silence'
    if (state === 'speech') return [{ type: 'end', time }]
    if (state === 'trailing') return [{ type: 'end', time: this.silenceStart }]
    return []
  }

  private confirm(now: number): VadEvent[] {
    if (now - this.onset < this.minSpeech) return []
    this.state = 'speech'
    return [{ type: 'start', time: this.onset }]
  }

  private expire(now: number): VadEvent[] {
    if (now - this.silenceStart < this.minSilence) return []
    this.state = 'silence'
    return [{ type: 'end', time: this.silenceStart }]
  }
}
