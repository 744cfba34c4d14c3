/// <reference path="./worklet-globals.d.ts" />
import { Pcm16Capture } from './pcm16-capture.ts'

/**
 * The 'pcm16-capture' worklet: the microphone's first channel in, 24 kHz PCM16 pieces of 100 ms out to the main
 * thread (transferred). A `flush` message sends what is gathered; the node outputs silence.
 */
export const CAPTURE_PROCESSOR_NAME = 'pcm16-capture'

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly capture = new Pcm16Capture(sampleRate, (pcm) =>
    this.port.postMessage(pcm, [pcm.buffer as ArrayBuffer]),
  )

  constructor(options: AudioWorkletNodeOptions) {
    super(options)
    this.port.onmessage = (event: MessageEvent<{ type: 'flush' }>) => {
      if (event.data.type === 'flush') {
        this.capture.flush()
        this.port.postMessage({ type: 'flushed' })
      }
    }
  }

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0]
    if (channel) this.capture.push(channel)
    return true
  }
}

registerProcessor(CAPTURE_PROCESSOR_NAME, CaptureProcessor)
