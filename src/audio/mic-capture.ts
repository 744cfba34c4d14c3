import processorUrl from './capture-processor.ts?worker&url'
import { CAPTURE_RATE } from './pcm16-capture.ts'

const PROCESSOR_NAME = 'pcm16-capture'

/**
 * The microphone as 24 kHz PCM16 pieces for a realtime transcription session. Echo cancellation, noise suppression and
 * automatic gain are off: they reshape voices, which hurts telling speakers apart. The context asks for 24 kHz so the
 * browser does the resampling; the worklet resamples itself when it gets another rate.
 */
export class MicCapture {
  private constructor(
    private readonly stream: MediaStream,
    private readonly context: AudioContext,
    private readonly node: AudioWorkletNode,
    private readonly source: MediaStreamAudioSourceNode,
  ) {}

  /** Rejects with the browser's error when the microphone is refused or missing (NotAllowedError, NotFoundError). */
  static async start(onPcm: (pcm: Int16Array) => void): Promise<MicCapture> {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    })
    try {
      let context: AudioContext
      try {
        context = new AudioContext({ sampleRate: CAPTURE_RATE, latencyHint: 'interactive' })
      } catch {
        context = new AudioContext({ latencyHint: 'interactive' })
      }
      await context.audioWorklet.addModule(processorUrl)
      const source = context.createMediaStreamSource(stream)
      const node = new AudioWorkletNode(context, PROCESSOR_NAME, { numberOfInputs: 1, numberOfOutputs: 0 })
      node.port.onmessage = (event: MessageEvent<Int16Array | { type: 'flushed' }>) => {
        if (event.data instanceof Int16Array) onPcm(event.data)
      }
      source.connect(node)
      await context.resume()
      return new MicCapture(stream, context, node, source)
    } catch (err) {
      for (const track of stream.getTracks()) track.stop()
      throw err
    }
  }

  get sampleRate(): number {
    return this.context.sampleRate
  }

  /** Sends the last partial piece, releases the microphone and closes the context. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 500)
      this.node.port.addEventListener('message', (event) => {
        if (!(event.data instanceof Int16Array)) {
          clearTimeout(timer)
          resolve()
        }
      })
      this.node.port.postMessage({ type: 'flush' })
    })
    this.source.disconnect()
    this.node.disconnect()
    for (const track of this.stream.getTracks()) track.stop()
    await this.context.close()
  }
}
