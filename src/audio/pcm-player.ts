import { isActive, type JitterCounters } from './jitter-buffer.ts'
import processorUrl from './pcm-player-processor.ts?worker&url'
import {
  type FromProcessor,
  PROCESSOR_NAME,
  type ProcessorOptions,
  SOURCE_RATE,
  type ToProcessor,
} from './player-protocol.ts'

export interface PlayerStats extends JitterCounters {
  /** performance.now() when the first audible sample left the worklet (by the audio clock), or null before. */
  firstSampleAt: number | null
  /** performance.now() when the page heard of it: later by however long its main thread was busy. */
  firstSampleNoticedAt: number | null
}

/** The worklet's ring holds 20 s; the main thread keeps anything beyond 15 s queued until there is room. */
const CAPACITY_FRAMES = 20 * SOURCE_RATE
const HIGH_WATER_FRAMES = 15 * SOURCE_RATE
const FADE_MS = 8

const IDLE: PlayerStats = {
  state: 'idle',
  bufferedMs: 0,
  underruns: 0,
  framesReceived: 0,
  framesPlayed: 0,
  framesInserted: 0,
  nonSilentFrames: 0,
  peak: 0,
  firstSampleAt: null,
  firstSampleNoticedAt: null,
}

type Listener = (stats: PlayerStats) => void

/**
 * Plays streamed 24 kHz PCM16 through the 'pcm-player' AudioWorklet. Chunks are converted to float and transferred
 * (no SharedArrayBuffer, so the page needs no cross-origin isolation). One player serves one stream at a time.
 */
export class PcmPlayer {
  private statsNow: PlayerStats = IDLE
  private readonly listeners = new Set<Listener>()
  private endWaiters: Array<(stats: PlayerStats) => void> = []
  /** Chunks held back until the worklet has room: the main thread's side of back-pressure. */
  private pending: Float32Array[] = []
  private framesSent = 0
  private inputEnded = false
  private stream = 0

  private constructor(
    private readonly context: AudioContext,
    private readonly node: AudioWorkletNode,
  ) {
    node.port.onmessage = (event: MessageEvent<FromProcessor>) => this.receive(event.data)
  }

  static async create(): Promise<PcmPlayer> {
    const context = new AudioContext({ latencyHint: 'interactive' })
    await context.audioWorklet.addModule(processorUrl)
    const processorOptions: ProcessorOptions = { capacityFrames: CAPACITY_FRAMES, fadeMs: FADE_MS }
    const node = new AudioWorkletNode(context, PROCESSOR_NAME, {
      numberOfInputs: 0,
      outputChannelCount: [context.destination.channelCount >= 2 ? 2 : 1],
      processorOptions,
    })
    node.connect(context.destination)
    return new PcmPlayer(context, node)
  }

  get stats(): PlayerStats {
    return this.statsNow
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Begins a new stream; `prebufferMs` of audio gathers before playback starts, or from `earliestMs` on when the
   * audio arrives well ahead of playback (an adaptive prebuffer, jitter-buffer.ts; by default off).
   */
  start({ prebufferMs, earliestMs = prebufferMs }: { prebufferMs: number; earliestMs?: number }) {
    // Autoplay policy may hold the context suspended until a user gesture; Play is one.
    void this.context.resume()
    this.pending = []
    this.framesSent = 0
    this.inputEnded = false
    this.update({ ...IDLE, state: 'prebuffering' })
    this.send({ type: 'start', stream: ++this.stream, prebufferMs, earliestMs })
  }

  push(pcm: Int16Array) {
    if (pcm.length === 0 || this.inputEnded) return
    const samples = new Float32Array(pcm.length)
    for (let i = 0; i < pcm.length; i++) samples[i] = (pcm[i] ?? 0) / 32768
    this.pending.push(samples)
    this.flush()
  }

  /** No more audio will come; what is buffered plays out. */
  end() {
    this.inputEnded = true
    this.flush()
  }

  /** Fades out in a few milliseconds and drops what is buffered. */
  async stop(): Promise<void> {
    this.pending = []
    this.inputEnded = true
    if (!isActive(this.statsNow.state)) return
    this.send({ type: 'stop' })
    await this.whenEnded()
  }

  /** Resolves once the stream has ended or been stopped. */
  whenEnded(): Promise<PlayerStats> {
    if (!isActive(this.statsNow.state)) return Promise.resolve(this.statsNow)
    return new Promise((resolve) => this.endWaiters.push(resolve))
  }

  async close() {
    this.node.disconnect()
    await this.context.close()
  }

  private flush() {
    while (this.pending.length > 0) {
      const inFlight = this.framesSent - this.statsNow.framesPlayed
      const next = this.pending[0]
      if (!next || inFlight + next.length > HIGH_WATER_FRAMES) break
      this.pending.shift()
      this.framesSent += next.length
      this.send({ type: 'chunk', samples: next }, [next.buffer as ArrayBuffer])
    }
    if (this.inputEnded && this.pending.length === 0 && this.statsNow.state !== 'idle')
      this.send({ type: 'end' })
  }

  private send(message: ToProcessor, transfer: Transferable[] = []) {
    this.node.port.postMessage(message, transfer)
  }

  private receive(message: FromProcessor) {
    if (message.stream !== this.stream) return
    if (message.type === 'first-sample') {
      const now = performance.now()
      this.update({
        ...this.statsNow,
        firstSampleAt: now - this.renderedSince(message.frame),
        firstSampleNoticedAt: now,
      })
      return
    }
    const { firstSampleAt, firstSampleNoticedAt } = this.statsNow
    this.update({ ...message.counters, firstSampleAt, firstSampleNoticedAt })
    if (this.pending.length > 0) this.flush()
    if (!isActive(message.counters.state)) {
      const waiters = this.endWaiters
      this.endWaiters = []
      for (const resolve of waiters) resolve(this.statsNow)
    }
  }

  /**
   * How long ago, at the latest, the quantum at context frame `frame` was rendered (ms). The page hears of the first
   * sample when its main thread is free, which during a play (the page rendering, the engine and the backend busy on
   * the same cores) is tens of ms after the worklet played it; the audio clock says when it was played. The audio
   * thread renders at most one callback (`baseLatency`) ahead of real time, so the audio rendered since, less one
   * callback, took at least that long: the estimate errs late, never early.
   */
  private renderedSince(frame: number): number {
    const since = this.context.currentTime - frame / this.context.sampleRate - (this.context.baseLatency || 0)
    return Math.max(0, since) * 1000
  }

  private update(stats: PlayerStats) {
    this.statsNow = stats
    for (const listener of this.listeners) listener(stats)
  }
}
