/// <reference path="./worklet-globals.d.ts" />
import { isActive, JitterBuffer, type PlayerState } from './jitter-buffer.ts'
import {
  type FromProcessor,
  PROCESSOR_NAME,
  type ProcessorOptions,
  SOURCE_RATE,
  type ToProcessor,
} from './player-protocol.ts'

/** Counters go to the main thread about every 50 ms while a stream is active, and at once on a state change. */
const STATS_EVERY_QUANTA = Math.max(1, Math.round((0.05 * sampleRate) / 128))

class PcmPlayerProcessor extends AudioWorkletProcessor {
  private readonly buffer: JitterBuffer
  private quanta = 0
  private lastState: PlayerState = 'idle'
  private stream = 0

  constructor(options: AudioWorkletNodeOptions) {
    super(options)
    const { capacityFrames, fadeMs } = options.processorOptions as ProcessorOptions
    this.buffer = new JitterBuffer({
      sourceRate: SOURCE_RATE,
      outputRate: sampleRate,
      capacityFrames,
      fadeFrames: Math.round((fadeMs / 1000) * sampleRate),
    })
    this.port.onmessage = (event: MessageEvent<ToProcessor>) => this.receive(event.data)
  }

  private receive(message: ToProcessor) {
    if (message.type === 'start') {
      this.stream = message.stream
      this.buffer.start(message.prebufferMs, message.earliestMs)
    } else if (message.type === 'chunk') this.buffer.push(message.samples)
    else if (message.type === 'end') this.buffer.end()
    else this.buffer.stop()
    this.report()
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const channels = outputs[0] ?? []
    const first = channels[0]
    if (!first) return true
    if (this.buffer.render(first))
      this.post({ type: 'first-sample', stream: this.stream, frame: currentFrame })
    for (let c = 1; c < channels.length; c++) channels[c]?.set(first)

    const state = this.buffer.currentState
    if (state !== this.lastState || (isActive(state) && ++this.quanta >= STATS_EVERY_QUANTA)) this.report()
    return true
  }

  private report() {
    this.quanta = 0
    const counters = this.buffer.counters
    this.lastState = counters.state
    this.post({ type: 'stats', stream: this.stream, counters })
  }

  private post(message: FromProcessor) {
    this.port.postMessage(message)
  }
}

registerProcessor(PROCESSOR_NAME, PcmPlayerProcessor)
