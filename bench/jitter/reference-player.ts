import { type FromReference, REFERENCE_PROCESSOR, type ToReference } from './protocol.ts'
import processorUrl from './reference-processor.ts?worker&url'

/**
 * The main-thread side of the reference player, as those consoles have it: an AudioContext at the stream's 24 kHz,
 * each PCM16 chunk posted to the worklet the moment it arrives. A worklet node that has drained returns false from
 * process() and is done, so each stream gets a new node (as they do on interrupt).
 */
export class ReferencePlayer {
  private node: AudioWorkletNode | null = null
  private drained: Promise<number> = Promise.resolve(0)

  private constructor(readonly context: AudioContext) {}

  static async create(): Promise<ReferencePlayer> {
    const context = new AudioContext({ sampleRate: 24_000, latencyHint: 'interactive' })
    await context.audioWorklet.addModule(processorUrl)
    return new ReferencePlayer(context)
  }

  /** A fresh node for a new stream, connected to the speakers and to `tap`. */
  start(tap: AudioNode): AudioWorkletNode {
    void this.context.resume()
    this.node?.disconnect()
    const node = new AudioWorkletNode(this.context, REFERENCE_PROCESSOR, {
      numberOfInputs: 0,
      outputChannelCount: [1],
    })
    this.drained = new Promise((resolve) => {
      node.port.onmessage = (event: MessageEvent<FromReference>) => resolve(event.data.underruns)
    })
    node.connect(this.context.destination)
    node.connect(tap)
    this.node = node
    return node
  }

  push(pcm: Int16Array) {
    this.send({ type: 'chunk', pcm })
  }

  end() {
    this.send({ type: 'end' })
  }

  /** Resolves with the worklet's own underrun count once everything queued has played. */
  whenDrained(): Promise<number> {
    return this.drained
  }

  private send(message: ToReference) {
    this.node?.port.postMessage(message)
  }
}
