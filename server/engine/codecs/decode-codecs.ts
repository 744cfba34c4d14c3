/**
 * WASM audio decoders plugged into mediabunny. mediabunny demuxes every upload container in Node, but decodes only
 * PCM itself: everything else it hands to WebCodecs, which Node 20 lacks. Its custom-decoder hook lets these npm
 * decoders (C libraries compiled to WASM, no native build, no ffmpeg) stand in:
 *
 * | codec | package                    | library  |
 * |-------|----------------------------|----------|
 * | mp3   | `mpg123-decoder`           | mpg123   |
 * | flac  | `@wasm-audio-decoders/flac`| libFLAC  |
 * | opus  | `opus-decoder`             | libopus  |
 * | aac   | `@audio/decode-aac`        | FAAD2 (GPL-2.0; LC, HE-AAC v1/v2) |
 *
 * Each package is imported the first time its codec is met, so a missing or broken one costs only that codec
 * (`decoder_unavailable`) and the service does not load four WASM modules at start.
 */
import {
  type AudioCodec,
  AudioSample,
  CustomAudioDecoder,
  type EncodedPacket,
  registerDecoder,
} from 'mediabunny'
import { loadAacDecoder } from './aac-decoder.ts'
import { AudioDecodeError } from './decode-error.ts'

export type WasmCodec = 'mp3' | 'flac' | 'opus' | 'aac'

/** One decode call's output: one plane per channel. `bad` marks a packet the library reported an error for. */
interface Planes {
  channelData: Float32Array[]
  sampleRate: number
  bad: boolean
}

/** The shape every library is adapted to: one packet in, planar float out. */
interface PacketDecoder {
  decode(packet: Uint8Array): Planes | Promise<Planes>
  free(): void
}

type OpenDecoder = (config: AudioDecoderConfig) => Promise<PacketDecoder>

/**
 * A lossy stream with the odd damaged packet still decodes (players conceal them, and so do we), but one where more
 * than this share fails is not the recording it claims to be.
 */
const MAX_BAD_PACKET_SHARE = 0.1
const EARLY_STOP_BAD_PACKETS = 50
/** Enough for any decoder's start-up delay: Opus pre-skip is 80 ms at most in practice, AAC and MP3 a frame or two. */
const MAX_PRIMING_SECONDS = 0.1
/** The same in packets, for containers that give packets no duration; mediabunny stalls past 40 (see silence()). */
const MAX_PRIMING_PACKETS = 8

const loaders: Record<WasmCodec, () => Promise<OpenDecoder>> = {
  async mp3() {
    const { MPEGDecoder } = await import('mpg123-decoder')
    return async () => {
      const decoder = new MPEGDecoder()
      await decoder.ready
      return {
        decode: (packet) => planes(decoder.decodeFrame(packet)),
        free: () => decoder.free(),
      }
    }
  },

  async flac() {
    const { FLACDecoder } = await import('@wasm-audio-decoders/flac')
    return async () => {
      const decoder = new FLACDecoder()
      await decoder.ready
      return {
        decode: async (packet) => planes(await decoder.decodeFrames([packet])),
        free: () => decoder.free(),
      }
    }
  },

  async opus() {
    const { OpusDecoder } = await import('opus-decoder')
    return async (config) => {
      // The pre-skip (encoder delay) is dropped by the decoder; mediabunny hands over every decoded sample.
      const decoder = new OpusDecoder(opusHeadOptions(config))
      await decoder.ready
      return {
        decode: (packet) => planes(decoder.decodeFrame(packet)),
        free: () => decoder.free(),
      }
    }
  },

  async aac() {
    const { decoder: createAacDecoder } = await loadAacDecoder()
    return async (config) => {
      // MP4 and Matroska carry the AudioSpecificConfig out of band; without it, packets are taken to be ADTS frames,
      // whose headers the decoder reads the configuration from.
      const asc = config.description ? bufferBytes(config.description) : undefined
      const decoder = await createAacDecoder(asc ? { asc } : undefined)
      return {
        decode(packet) {
          const out = decoder.decode(packet) as {
            channelData: Float32Array[]
            sampleRate: number
            errors?: number
          }
          return { channelData: out.channelData, sampleRate: out.sampleRate, bad: (out.errors ?? 0) > 0 }
        },
        free: () => decoder.free(),
      }
    }
  },
}

const registered = new Map<WasmCodec, Promise<void>>()

export function isWasmCodec(codec: AudioCodec): codec is WasmCodec {
  return Object.hasOwn(loaders, codec)
}

/**
 * Loads the codec's package and registers its mediabunny decoder, once. Call before decoding: a failure here is the
 * package's (`decoder_unavailable`), not the file's.
 */
export async function loadWasmDecoder(codec: WasmCodec): Promise<void> {
  let ready = registered.get(codec)
  if (!ready) {
    ready = loaders[codec]().then((open) => registerDecoder(decoderClass(codec, open)))
    registered.set(codec, ready)
  }
  try {
    await ready
  } catch (error) {
    registered.delete(codec) // let a later upload try again
    // A loader that already said why (the optional AAC decoder is not installed) is passed on as it is.
    if (error instanceof AudioDecodeError) throw error
    throw new AudioDecodeError('decoder_unavailable', `The ${codec} decoder could not be loaded`, {
      cause: error,
    })
  }
}

function decoderClass(codec: WasmCodec, open: OpenDecoder): typeof CustomAudioDecoder {
  return class extends CustomAudioDecoder {
    static override supports(candidate: AudioCodec): boolean {
      return candidate === codec
    }

    private decoder: PacketDecoder | null = null
    private nextTimestamp: number | null = null
    private outputRate = 0
    private primingSeconds = 0
    private primingPackets = 0
    private emitted = false
    private packets = 0
    private badPackets = 0

    /**
     * None of these methods rejects: mediabunny chains the calls, and once one rejects, its own close() call after
     * it rejects too, unhandled. Errors go to onError, which ends the decode for its reader.
     */
    async init() {
      try {
        this.decoder = await open(this.config)
        this.outputRate = this.config.sampleRate
      } catch (error) {
        this.onError(error)
      }
    }

    async decode(packet: EncodedPacket) {
      try {
        await this.decodePacket(packet)
      } catch (error) {
        this.onError(error)
      }
    }

    private async decodePacket(packet: EncodedPacket) {
      if (!this.decoder) return // init failed and has said so
      this.packets++
      // Decoders hold back a frame or two, so output time is counted from the first packet, not per packet.
      this.nextTimestamp ??= packet.timestamp
      const out = await this.decoder.decode(packet.data)
      const frames = out.channelData[0]?.length ?? 0
      if (frames > 0) {
        this.outputRate = out.sampleRate
        this.emit(out)
      } else if (
        !this.emitted &&
        this.primingSeconds < MAX_PRIMING_SECONDS &&
        this.primingPackets < MAX_PRIMING_PACKETS
      ) {
        // Nothing out yet: the decoder's own delay (FAAD2's withheld frame, Opus pre-skip), not an error.
        this.primingSeconds += packet.duration
        this.primingPackets++
      } else {
        this.emit(this.silence(packet.duration))
        out.bad = true
      }
      if (out.bad) {
        this.badPackets++
        // Stop early on a stream of garbage: each bad packet also costs a line on stderr from the library.
        if (this.badPackets >= EARLY_STOP_BAD_PACKETS) this.checkBadPackets()
      }
    }

    /**
     * A packet that decodes to nothing is concealed with silence of its duration, as players do. That keeps the
     * timeline, and it keeps mediabunny going: its sink waits for output once 40 packets are queued, forever.
     */
    private silence(seconds: number): Planes {
      const frames = Math.max(1, Math.round(seconds * this.outputRate))
      const channels = Array.from({ length: this.config.numberOfChannels }, () => new Float32Array(frames))
      return { channelData: channels, sampleRate: this.outputRate, bad: true }
    }

    private emit(out: Planes) {
      const frames = out.channelData[0]?.length ?? 0
      if (frames === 0 || this.nextTimestamp === null) return
      this.onSample(toAudioSample(out, this.nextTimestamp))
      this.nextTimestamp += frames / out.sampleRate
      this.emitted = true
    }

    flush() {
      try {
        this.checkBadPackets()
      } catch (error) {
        this.onError(error)
      }
    }

    private checkBadPackets() {
      // A bad first packet may be the only one (a truncated file), so a share of a handful means nothing.
      if (this.badPackets > Math.max(2, this.packets * MAX_BAD_PACKET_SHARE)) {
        throw new AudioDecodeError(
          'corrupt_audio',
          `${this.badPackets} of ${this.packets} ${codec} packets could not be decoded`,
        )
      }
    }

    close() {
      try {
        this.decoder?.free()
      } catch {
        // A decoder that trapped may fail to free; the thread's memory goes with the instance anyway.
      }
      this.decoder = null
    }
  }
}

function planes(out: { channelData: Float32Array[]; sampleRate: number; errors: unknown[] }): Planes {
  return { channelData: out.channelData, sampleRate: out.sampleRate, bad: out.errors.length > 0 }
}

function toAudioSample(out: Planes, timestamp: number): AudioSample {
  const frames = out.channelData[0]?.length ?? 0
  const data = new Float32Array(frames * out.channelData.length)
  out.channelData.forEach((plane, channel) => {
    data.set(plane.subarray(0, frames), channel * frames)
  })
  return new AudioSample({
    data,
    format: 'f32-planar',
    numberOfChannels: out.channelData.length,
    sampleRate: out.sampleRate,
    timestamp,
  })
}

function bufferBytes(source: AllowSharedBufferSource): Uint8Array {
  return ArrayBuffer.isView(source)
    ? new Uint8Array(source.buffer, source.byteOffset, source.byteLength)
    : new Uint8Array(source)
}

/**
 * opus-decoder's options from the Ogg "OpusHead" identification header (RFC 7845 §5.1), which mediabunny supplies as
 * the description for Ogg, WebM and MP4 alike. Channel mapping families other than 0 carry their own stream layout.
 */
function opusHeadOptions(config: AudioDecoderConfig) {
  const head = config.description ? bufferBytes(config.description) : null
  if (!head || head.length < 19) return { channels: config.numberOfChannels, preSkip: 0 }
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength)
  const channels = view.getUint8(9)
  const preSkip = view.getUint16(10, true)
  const mappingFamily = view.getUint8(18)
  if (mappingFamily === 0 || head.length < 21 + channels) return { channels, preSkip }
  return {
    channels,
    preSkip,
    streamCount: view.getUint8(19),
    coupledStreamCount: view.getUint8(20),
    channelMappingTable: Array.from(head.subarray(21, 21 + channels)),
  }
}
