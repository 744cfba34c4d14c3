import { createRequire } from 'node:module'
import {
  type AudioCodec,
  type AudioSample,
  CustomAudioEncoder,
  EncodedPacket,
  registerEncoder,
} from 'mediabunny'

/**
 * An Opus encoder for mediabunny, backed by the libopus build that ships with opusscript.
 *
 * We drive opusscript's native handler ourselves instead of its `OpusScript` wrapper: the wrapper views its PCM
 * buffer through `HEAPU16.subarray(bytePointer)`, i.e. at twice the allocated address, so with a few encoders alive
 * one can overwrite another's memory, and its views go stale when the WASM heap grows.
 */

interface OpusHandler {
  /** Encodes one frame. The input is little-endian PCM16 with each byte in its own 16-bit slot (opusscript's layout). */
  _encode(pcmPointer: number, byteCount: number, packetPointer: number, frameSize: number): number
  _encoder_ctl(request: number, value: number): number
}

interface OpusNative {
  OpusScriptHandler: {
    new (sampleRate: number, channels: number, application: number): OpusHandler
    destroy_handler(handler: OpusHandler): void
  }
  HEAPU8: Uint8Array
  HEAP32: Int32Array
  _malloc(bytes: number): number
  _free(pointer: number): void
}

const OPUS_APPLICATION_AUDIO = 2049
const OPUS_SET_BITRATE = 4002
const OPUS_GET_LOOKAHEAD = 4027
const MAX_PACKET_BYTES = 1276 * 3 // what opusscript's native side allows opus_encode to write
const OPUS_RATES = [8000, 12000, 16000, 24000, 48000]

/**
 * Waits for the event loop's next turn. libopus runs on the main thread (about half a millisecond a frame here), and
 * everything between it and the socket — the Ogg muxer, the byte stream, the response — runs as promise callbacks,
 * which go on as long as input is waiting: the engine hands over 300 ms chunks, a short sentence all at once. Without
 * a turn after each frame, the socket is only written once all of that is encoded (the Ogg pages held back to the end
 * of a sentence), and no other request is served meanwhile.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

let native: OpusNative | undefined
/** One WASM instance shared by all encoders, loaded on first use (synchronous, like opusscript itself). */
function opusNative(): OpusNative {
  native ??= (
    createRequire(import.meta.url)('opusscript/build/opusscript_native_wasm.js') as () => OpusNative
  )()
  return native
}

/** RFC 7845 identification header; Ogg needs it as the decoder description. Pre-skip is in 48 kHz samples. */
function opusHead(channels: number, preSkip: number, inputSampleRate: number): Uint8Array {
  const head = new Uint8Array(19)
  const view = new DataView(head.buffer)
  head.set(new TextEncoder().encode('OpusHead'))
  head[8] = 1 // version
  head[9] = channels
  view.setUint16(10, preSkip, true)
  view.setUint32(12, inputSampleRate, true)
  return head // output gain 0, channel mapping family 0
}

class OpusEncoder extends CustomAudioEncoder {
  static override supports(codec: AudioCodec, config: AudioEncoderConfig): boolean {
    return (
      codec === 'opus' &&
      OPUS_RATES.includes(config.sampleRate) &&
      config.numberOfChannels >= 1 &&
      config.numberOfChannels <= 2
    )
  }

  private handler: OpusHandler | null = null
  private pcmPointer = 0
  private packetPointer = 0
  /** Samples per channel in one 20 ms frame. */
  private frameSize = 0
  /** Encoder delay in samples per channel; the decoder drops it again through the header's pre-skip. */
  private lookahead = 0
  private pending = new Int16Array(0)
  private pendingLength = 0
  private inputFrames = 0
  private encodedFrames = 0
  private description: Uint8Array = new Uint8Array(0)

  init(): void {
    const { sampleRate, numberOfChannels, bitrate } = this.config
    const opus = opusNative()
    this.handler = new opus.OpusScriptHandler(sampleRate, numberOfChannels, OPUS_APPLICATION_AUDIO)
    if (bitrate !== undefined) this.handler._encoder_ctl(OPUS_SET_BITRATE, bitrate)
    const out = opus._malloc(4)
    this.handler._encoder_ctl(OPUS_GET_LOOKAHEAD, out)
    this.lookahead = opus.HEAP32[out >> 2] ?? 0
    opus._free(out)

    this.frameSize = sampleRate / 50
    this.pending = new Int16Array(this.frameSize * numberOfChannels)
    this.pcmPointer = opus._malloc(this.pending.byteLength * 2)
    this.packetPointer = opus._malloc(MAX_PACKET_BYTES)
    this.description = opusHead(numberOfChannels, this.lookahead * (48_000 / sampleRate), sampleRate)
  }

  async encode(sample: AudioSample): Promise<void> {
    const samples = new Int16Array(sample.allocationSize({ planeIndex: 0, format: 's16' }) / 2)
    sample.copyTo(samples, { planeIndex: 0, format: 's16' })
    this.inputFrames += sample.numberOfFrames
    let offset = 0
    while (offset < samples.length) {
      const take = Math.min(samples.length - offset, this.pending.length - this.pendingLength)
      this.pending.set(samples.subarray(offset, offset + take), this.pendingLength)
      this.pendingLength += take
      offset += take
      if (this.pendingLength === this.pending.length) {
        this.encodeFrame()
        await nextTurn()
      }
    }
  }

  /** Feeds silence until the encoder has emitted all real input plus its lookahead. */
  flush(): void {
    const end = this.inputFrames + this.lookahead
    while (this.encodedFrames < end) {
      this.pending.fill(0, this.pendingLength)
      this.encodeFrame()
    }
  }

  close(): void {
    if (this.handler === null) return
    const opus = opusNative()
    opus.OpusScriptHandler.destroy_handler(this.handler)
    opus._free(this.pcmPointer)
    opus._free(this.packetPointer)
    this.handler = null
  }

  private encodeFrame(): void {
    if (this.handler === null) throw new Error('Opus encoder is not initialized')
    const opus = opusNative()
    const bytes = new Uint8Array(this.pending.buffer)
    // Views are made per call: heap growth replaces the WASM memory buffer.
    new Uint16Array(opus.HEAPU8.buffer, this.pcmPointer, bytes.length).set(bytes)
    const length = this.handler._encode(this.pcmPointer, bytes.length, this.packetPointer, this.frameSize)
    if (length < 0) throw new Error(`Opus encoding failed (libopus error ${length})`)
    const data = opus.HEAPU8.slice(this.packetPointer, this.packetPointer + length)

    const { sampleRate, numberOfChannels } = this.config
    // A shorter duration on the final packet tells the Ogg muxer to trim the padding flush() added.
    const frames = Math.min(this.frameSize, this.inputFrames + this.lookahead - this.encodedFrames)
    const packet = new EncodedPacket(data, 'key', this.encodedFrames / sampleRate, frames / sampleRate)
    const meta =
      this.encodedFrames === 0
        ? { decoderConfig: { codec: 'opus', sampleRate, numberOfChannels, description: this.description } }
        : undefined
    this.encodedFrames += this.frameSize
    this.pendingLength = 0
    this.onPacket(packet, meta)
  }
}

let registered = false
/** Makes mediabunny encode the `opus` codec with libopus; safe to call more than once. */
export function registerOpusEncoder(): void {
  if (!registered) registerEncoder(OpusEncoder)
  registered = true
}
