import { CubicResampler } from './cubic-resampler.ts'
import { PeriodStretcher } from './period-stretch.ts'
import { RingBuffer } from './ring-buffer.ts'

/**
 * The playback logic of the worklet, free of Web Audio so it runs in unit tests: a ring of 24 kHz samples that
 * waits for its prebuffer target, plays, rides out underruns by emitting silence and prebuffering again, drains
 * after the last chunk and fades out on stop. The edges of an underrun are ramped (out when the ring runs dry, in when
 * sound resumes), so a gap is heard as a short dip in level, never as a click: a cut from a loud sample straight to
 * zero is a step, and a step is broadband noise (bench:jitter counts them). While playing, a ring that the arrivals
 * say will run dry is stretched instead (period-stretch.ts, see STRETCH_MARGIN_MS below).
 */

export type PlayerState = 'idle' | 'prebuffering' | 'playing' | 'draining' | 'ended' | 'stopped'

/** Whether a stream is under way (its end has not been played or stopped yet). */
export function isActive(state: PlayerState): boolean {
  return state === 'prebuffering' || state === 'playing' || state === 'draining'
}

export interface JitterCounters {
  state: PlayerState
  /** Source audio waiting in the ring, in milliseconds. */
  bufferedMs: number
  /** Times the ring ran dry while more audio was still due. */
  underruns: number
  /** Source frames accepted into the ring. */
  framesReceived: number
  /** Source frames read out of the ring into the output. */
  framesPlayed: number
  /** Frames (at the source rate) added to the output by stretching, to ride out late arrivals without a gap. */
  framesInserted: number
  /** Source frames played whose level was above -60 dBFS. */
  nonSilentFrames: number
  /** Largest absolute output sample. */
  peak: number
}

export interface JitterBufferOptions {
  sourceRate: number
  outputRate: number
  /** Ring size in source frames. */
  capacityFrames: number
  /** Length of the stop fade in output frames. */
  fadeFrames: number
}

const SILENCE = 0.001
/** Output frames over which sound comes back after the ring ran dry: about 2 ms, too short to hear as a fade. */
const RESUME_RAMP_FRAMES = 96
/** Zeros that push the interpolator's last real samples out after the final chunk. */
const TAIL_PADDING = new Float32Array(3)
/**
 * The early start (an adaptive prebuffer). Audio is produced far faster than it plays when the engine is idle (tens
 * of times real time), so waiting for the full recommended prebuffer only adds latency: once EARLY_ARRIVALS chunks
 * have come and the audio received shows production at least EARLY_RATE times faster than playback, measured from
 * the stream's start (the request: so the service's start-up and the network's round trip count against it, which
 * only underestimates the rate), and the ring holds the stream's minimum and twice the longest wait seen (the wait
 * for the first chunk included), playing cannot catch up with production short of a stall longer than any seen.
 * Slow or jittery production never qualifies and waits for the full target; so does every restart after an underrun.
 * It takes two arrivals: one alone says nothing of the rate. A stream paced at real time whose first chunk is ready
 * at once looks infinitely fast on that chunk, and starting on it underran at every later chunk (bench:jitter: 5
 * underruns in 5 steady runs, where two arrivals give none).
 */
const EARLY_RATE = 1.5
const EARLY_ARRIVALS = 2

/**
 * The target grows with lateness seen. A chunk is played from the moment it arrives whole, so with chunks of C ms a
 * buffer of B ms rides out a chunk arriving up to B − C ms later than its neighbours would have had it; the contract's
 * 200 ms is "at least" (6.1). Each arrival's lead is the audio received before it minus the time it came (how far
 * production is ahead of the clock); the deepest fall of that lead below its earlier peak is the lateness the stream
 * has shown. While that exceeds what the target covers, the target becomes the largest chunk plus that lateness (up
 * to the ring's size): steady streams keep the recommended target, a jittery one stops underrunning once its jitter
 * has been seen — before the first start if it shows early, otherwise after the underrun it causes. It grows to
 * LATENESS_GROWTH times the recommended target at most: beyond that the stream is failing rather than jittering, and
 * the listener is better served by gaps than by seconds of silence before each resumption.
 */
const LATENESS_GROWTH = 3

/**
 * Playout stretching (NetEq's preemptive expand). The ring holds `lead + slack` frames, where the lead is the audio
 * received minus the time since the start (how far production is ahead of the clock; it falls between arrivals and
 * jumps at each one) and the slack is the time since the start minus the audio played (the wait before playing, the
 * gaps, the frames inserted). The ring runs dry when the lead falls below −slack, so once the arrivals have shown a
 * lead as low as L (the deepest fall below its peak so far, or the fall under way while an arrival is overdue, with
 * an allowance for worse to come: see `wantedStretch`), the slack must exceed −L by a margin: one render quantum and
 * the time a message takes to cross threads, with room to spare. Short of it, each frame left in the ring is
 * stretched by the share of the shortfall it must make up (1 + shortfall / ring), up to twice its length. A stream
 * that keeps its pace never meets the condition and is played untouched; so are a stream's last frames (no more is
 * due) and a stop's fade. A prebuffer at the start is capped by the recommendation, so jitter found after it
 * (±100 ms at real time, where the 200 ms prebuffer covers 100 ms of lateness in 100 ms chunks) is absorbed by
 * slowing down for a moment, not by waiting longer before every play.
 */
const STRETCH_MARGIN_MS = 20
/**
 * Lateness or a shortfall this small is measurement noise (the clock moves a render quantum at a time, messages cross
 * threads when they can), not lateness to stretch or wait for.
 */
const TIMING_NOISE_MS = 5
const MAX_STRETCH = 2
/**
 * Stretching is for a stream paced near real time, where a gap means audio is late. A source that delivers in bursts
 * far faster than it plays (the engine's own speed; live mode, which speaks each phrase as it is written and then
 * waits for the next) has nothing late when it goes quiet: it has said all it has, and stretching the tail of each
 * phrase would slur it. The pace is the audio that came in the last PACE_WINDOW arrivals over the time they took.
 * (A window spanning a pause between phrases looks paced, so a new phrase's first few milliseconds may be stretched
 * until the window holds its burst: 13 ms over three phrases in the unit test, against 213 ms unpaced.)
 */
const PACE_WINDOW = 8
const PACED_RATE = 2
export class JitterBuffer {
  private readonly ring: RingBuffer
  private readonly resampler: CubicResampler
  private readonly stretcher = new PeriodStretcher()
  private readonly stretchMargin: number
  private readonly timingNoise: number
  /** The stretch factor for the current render quantum (1: none). */
  private stretchFactor = 1
  /** When the last PACE_WINDOW arrivals came (clock) and how much each brought, as rings indexed by `arrivals`. */
  private readonly arrivalTimes = new Float64Array(PACE_WINDOW)
  private readonly arrivalFrames = new Float64Array(PACE_WINDOW)
  private state: PlayerState = 'idle'
  private prebufferFrames = 0
  /** The least audio an early start may begin with; equal to `prebufferFrames` when early starts are off. */
  private earliestFrames = 0
  /** Time since `start`, in source frames, advanced by each render quantum: the clock arrivals are read against. */
  private clock = 0
  private lastArrival = 0
  private longestGap = 0
  private arrivals = 0
  /** The lateness the arrivals have shown, and what it is measured from (both in source frames; see above). */
  private leadPeak = Number.NEGATIVE_INFINITY
  private lateness = 0
  private largestChunk = 0
  /** Whether this stream has started playing: an early start is for the first start only. */
  private started = false
  private inputEnded = false
  private paddingLeft = 0
  private fadeLeft = 0
  /** Output frames of the resume ramp still to apply (after the ring ran dry). */
  private resumeLeft = 0
  private underruns = 0
  private framesReceived = 0
  private framesPlayed = 0
  private framesInserted = 0
  private nonSilentFrames = 0
  private peak = 0
  /** Whether a sample above silence has left yet, to report the first audible output once. */
  private heard = false

  constructor(private readonly opts: JitterBufferOptions) {
    this.ring = new RingBuffer(opts.capacityFrames)
    this.resampler = new CubicResampler(opts.sourceRate, opts.outputRate)
    this.stretchMargin = (STRETCH_MARGIN_MS / 1000) * opts.sourceRate
    this.timingNoise = (TIMING_NOISE_MS / 1000) * opts.sourceRate
  }

  /**
   * Begins a new stream, forgetting any previous one. Playback starts when `prebufferMs` of audio is buffered, or
   * earlier — with at least `earliestMs` — when the arrivals show production well ahead of playback (EARLY_RATE).
   */
  start(prebufferMs: number, earliestMs = prebufferMs) {
    this.ring.clear()
    this.resampler.reset()
    this.stretcher.reset()
    this.stretchFactor = 1
    this.prebufferFrames = Math.min(
      this.opts.capacityFrames,
      Math.round((prebufferMs / 1000) * this.opts.sourceRate),
    )
    this.earliestFrames = Math.min(
      this.prebufferFrames,
      Math.round((earliestMs / 1000) * this.opts.sourceRate),
    )
    this.clock = 0
    this.lastArrival = 0
    this.longestGap = 0
    this.arrivals = 0
    this.leadPeak = Number.NEGATIVE_INFINITY
    this.lateness = 0
    this.largestChunk = 0
    this.started = false
    this.state = 'prebuffering'
    this.inputEnded = false
    this.paddingLeft = 0
    this.fadeLeft = 0
    this.resumeLeft = 0
    this.underruns = 0
    this.framesReceived = 0
    this.framesPlayed = 0
    this.framesInserted = 0
    this.nonSilentFrames = 0
    this.peak = 0
    this.heard = false
  }

  /** Adds source samples; returns how many fitted (the rest is the caller's back-pressure error). */
  push(samples: Float32Array): number {
    if (this.inputEnded || (this.state !== 'prebuffering' && this.state !== 'playing')) return 0
    const lead = this.framesReceived - this.clock
    this.leadPeak = Math.max(this.leadPeak, lead)
    this.lateness = Math.max(this.lateness, this.leadPeak - lead)
    const written = this.ring.write(samples)
    this.framesReceived += written
    this.largestChunk = Math.max(this.largestChunk, written)
    // The wait before the first chunk counts: it is the stream's first gap.
    this.longestGap = Math.max(this.longestGap, this.clock - this.lastArrival)
    this.lastArrival = this.clock
    this.arrivalTimes[this.arrivals % PACE_WINDOW] = this.clock
    this.arrivalFrames[this.arrivals % PACE_WINDOW] = written
    this.arrivals++
    return written
  }

  /** No more input: play what is buffered, however short of the prebuffer target. */
  end() {
    if (this.inputEnded || this.state === 'idle' || this.state === 'ended' || this.state === 'stopped') return
    this.inputEnded = true
    this.paddingLeft = TAIL_PADDING.length
    this.state = 'draining'
  }

  /** Fades out over `fadeFrames`, then silence. */
  stop() {
    if (this.state === 'idle' || this.state === 'ended' || this.state === 'stopped') return
    this.fadeLeft = this.state === 'prebuffering' ? 0 : this.opts.fadeFrames
    if (this.fadeLeft === 0) this.finish('stopped')
    else this.inputEnded = true
  }

  /**
   * Fills one render quantum. Returns true when this quantum held the first audible sample of the stream, so the
   * caller can timestamp it.
   */
  render(out: Float32Array): boolean {
    out.fill(0)
    this.clock += (out.length * this.opts.sourceRate) / this.opts.outputRate
    if (this.state === 'prebuffering' && (this.ring.available >= this.target() || this.earlyStart())) {
      this.state = 'playing'
      this.started = true
    }
    if (this.state !== 'playing' && this.state !== 'draining') return false

    this.stretchFactor = this.wantedStretch()
    const written = this.resampler.render(out, 0, this.nextSample)
    if (this.resumeLeft > 0) this.rampIn(out, written)
    // The ring is empty with more audio due: this quantum's sound is the last before a gap (unless audio arrives in
    // time, which costs a 2 ms dip). Ramp it down to zero where it ends, and ramp the next sound up.
    if (!this.inputEnded && this.fadeLeft === 0 && this.ring.available === 0 && written > 0) {
      for (let i = 0; i < written; i++) out[i] = (out[i] ?? 0) * ((written - 1 - i) / written)
      this.resumeLeft = RESUME_RAMP_FRAMES
    }
    if (written < out.length) {
      if (this.state === 'draining' && this.fadeLeft === 0) this.finish('ended')
      else if (this.fadeLeft === 0) {
        // Ran dry mid-stream: silence, then wait for the prebuffer target again rather than stutter.
        this.underruns++
        this.state = 'prebuffering'
      }
    }
    if (this.fadeLeft > 0) this.applyFade(out)
    return this.measure(out)
  }

  /** The audio to gather before playing: the prebuffer, or more once the arrivals have been late (see above). */
  private target(): number {
    const limit = Math.min(this.opts.capacityFrames, LATENESS_GROWTH * this.prebufferFrames)
    // Less the timing noise: a stream that stalled and then delivered everything at once holds exactly chunk plus
    // lateness, give or take a quantum, and should not wait for the next chunk over a few frames.
    const coversLateness = Math.min(limit, this.largestChunk + Math.max(0, this.lateness - this.timingNoise))
    return Math.max(this.prebufferFrames, coversLateness)
  }

  /** How much to stretch what is in the ring now (STRETCH_MARGIN_MS above says why and when). */
  private wantedStretch(): number {
    if (this.state !== 'playing' || this.inputEnded || this.arrivals < 2 || !this.paced()) return 1
    const lead = this.framesReceived - this.clock
    // The worst lateness seen is a poor guide to the worst to come while it rests on a few arrivals: allow for as much
    // again. An arrival overdue now may be late by far more than it is so far: allow for twice as much again, so the
    // stretch starts while the ring still holds enough to stretch. Either allowance is at most half the prebuffer.
    const overdue = this.leadPeak - lead
    const allowance = Math.min(this.prebufferFrames / 2, Math.max(this.lateness, 2 * overdue))
    const lowestLead = this.leadPeak - Math.max(this.lateness, overdue) - allowance
    const slack = this.clock - this.framesPlayed
    const shortfall = this.stretchMargin - lowestLead - slack
    if (shortfall <= this.timingNoise) return 1
    return Math.min(MAX_STRETCH, 1 + shortfall / Math.max(1, this.ring.available))
  }

  /** Whether the recent arrivals came at no more than PACED_RATE times real time (see PACE_WINDOW). */
  private paced(): boolean {
    // Until the window has filled, the pace since the start (the request): a few arrivals bunched together at the
    // start of a real-time stream say nothing of its pace.
    if (this.arrivals <= PACE_WINDOW) return this.framesReceived <= PACED_RATE * this.lastArrival
    const oldest = this.arrivals % PACE_WINDOW
    let frames = 0
    // The audio that came after the oldest arrival in the window, over the time since it.
    for (let k = 1; k < PACE_WINDOW; k++) frames += this.arrivalFrames[(oldest + k) % PACE_WINDOW] ?? 0
    return frames <= PACED_RATE * (this.lastArrival - (this.arrivalTimes[oldest] ?? 0))
  }

  /** Whether the first start may come before the full target (EARLY_RATE above says when). */
  private earlyStart(): boolean {
    if (this.started || this.arrivals < EARLY_ARRIVALS || this.ring.available < this.earliestFrames)
      return false
    // Arrivals within the first quantum have no elapsed time to measure a rate over; wait for one.
    if (this.lastArrival === 0) return false
    return (
      this.framesReceived / this.lastArrival >= EARLY_RATE &&
      this.ring.available >= 2 * this.longestGap &&
      this.ring.available >= this.largestChunk + this.lateness
    )
  }

  /** The state alone, read every render quantum without building the counters object. */
  get currentState(): PlayerState {
    return this.state
  }

  get counters(): JitterCounters {
    return {
      state: this.state,
      bufferedMs: (this.ring.available / this.opts.sourceRate) * 1000,
      underruns: this.underruns,
      framesReceived: this.framesReceived,
      framesPlayed: this.framesPlayed,
      framesInserted: this.framesInserted,
      nonSilentFrames: this.nonSilentFrames,
      peak: this.peak,
    }
  }

  private readonly nextSample = (): number | undefined => {
    const inserted = this.stretcher.inserted(this.framesPlayed)
    if (inserted !== undefined) {
      this.framesInserted++
      return inserted
    }
    if (this.stretchFactor > 1 && this.stretcher.readyFor(this.stretchFactor, this.framesPlayed))
      this.stretcher.plan(this.ring, this.framesPlayed)
    const sample = this.ring.shift()
    if (sample !== undefined) {
      this.framesPlayed++
      if (Math.abs(sample) > SILENCE) this.nonSilentFrames++
      return sample
    }
    if (this.inputEnded && this.paddingLeft > 0) return TAIL_PADDING[--this.paddingLeft]
    return undefined
  }

  private rampIn(out: Float32Array, written: number) {
    for (let i = 0; i < written && this.resumeLeft > 0; i++, this.resumeLeft--) {
      out[i] = (out[i] ?? 0) * (1 - this.resumeLeft / (RESUME_RAMP_FRAMES + 1))
    }
  }

  private applyFade(out: Float32Array) {
    const total = this.opts.fadeFrames
    for (let i = 0; i < out.length; i++) {
      if (this.fadeLeft > 0) {
        out[i] = (out[i] ?? 0) * (this.fadeLeft / total)
        this.fadeLeft--
      } else out[i] = 0
    }
    if (this.fadeLeft === 0) this.finish('stopped')
  }

  private measure(out: Float32Array): boolean {
    let peak = 0
    for (const s of out) peak = Math.max(peak, Math.abs(s))
    this.peak = Math.max(this.peak, peak)
    if (this.heard || peak <= SILENCE) return false
    this.heard = true
    return true
  }

  private finish(state: 'ended' | 'stopped') {
    this.state = state
    this.ring.clear()
    this.stretcher.reset()
    this.fadeLeft = 0
  }
}
