import {
  AdtsOutputFormat,
  type AudioCodec,
  AudioSample,
  AudioSampleSource,
  BufferTarget,
  canEncodeAudio,
  FlacOutputFormat,
  Mp3OutputFormat,
  OggOutputFormat,
  Output,
  type OutputFormat,
  WavOutputFormat,
} from 'mediabunny'
import { type ResponseFormat, SAMPLE_RATE } from '../../schema/index.ts'
import { EncoderUnavailableError } from './encoder-error.ts'

/**
 * The heavy half of encode-browser.ts, loaded on the first download: mediabunny's muxers (its own WAV writer
 * included) with MP3, AAC and FLAC from its WASM encoder packages, each loaded when first asked for, and Opus from
 * the browser's WebCodecs encoder. Importing names, not the namespace, lets the bundler leave out mediabunny's
 * demuxers and decoders.
 */

export type ContainerFormat = Exclude<ResponseFormat, 'pcm'>

interface Setup {
  codec: AudioCodec
  /** Bits per second of the lossy codecs: downloads are kept, so they get more than the service's streams. */
  bitrate?: number
  container: () => OutputFormat
  /** Registers a WASM encoder with mediabunny; absent where mediabunny or the browser has one. */
  register?: () => Promise<void>
}

const SETUPS: Record<ContainerFormat, Setup> = {
  wav: { codec: 'pcm-s16', container: () => new WavOutputFormat() },
  mp3: {
    codec: 'mp3',
    bitrate: 96_000,
    container: () => new Mp3OutputFormat(),
    register: async () => (await import('@mediabunny/mp3-encoder')).registerMp3Encoder(),
  },
  flac: {
    codec: 'flac',
    container: () => new FlacOutputFormat(),
    register: async () => (await import('@mediabunny/flac-encoder')).registerFlacEncoder(),
  },
  aac: {
    codec: 'aac',
    bitrate: 96_000,
    container: () => new AdtsOutputFormat(),
    register: async () => (await import('@mediabunny/aac-encoder')).registerAacEncoder(),
  },
  opus: { codec: 'opus', bitrate: 48_000, container: () => new OggOutputFormat() },
}

/** Each encoder package is loaded and registered once. */
const registered = new Map<ContainerFormat, Promise<void>>()

/** The whole of `pcm` (24 kHz mono, not empty) as a file of `format`. */
export async function encodeContainer(pcm: Int16Array, format: ContainerFormat): Promise<ArrayBuffer> {
  const setup = SETUPS[format]
  if (setup.register) {
    const register = registered.get(format) ?? setup.register()
    registered.set(format, register)
    await register
  }
  // A bare number given to mediabunny's Quality is a 0–1 level, not bits per second: pass the bitrate itself.
  const bitrate = setup.bitrate === undefined ? {} : { bitrate: setup.bitrate }
  const supported = await canEncodeAudio(setup.codec, {
    numberOfChannels: 1,
    sampleRate: SAMPLE_RATE,
    ...bitrate,
  })
  if (!supported) throw new EncoderUnavailableError(format)

  const target = new BufferTarget()
  const output = new Output({ format: setup.container(), target })
  const source = new AudioSampleSource({ codec: setup.codec, ...bitrate })
  output.addAudioTrack(source)
  await output.start()
  try {
    // A second at a time, so an encoder never holds a whole script's audio in one piece.
    for (let at = 0; at < pcm.length; at += SAMPLE_RATE) {
      const sample = new AudioSample({
        data: pcm.subarray(at, at + SAMPLE_RATE),
        format: 's16',
        numberOfChannels: 1,
        sampleRate: SAMPLE_RATE,
        timestamp: at / SAMPLE_RATE,
      })
      await source.add(sample).finally(() => sample.close())
    }
  } catch (err) {
    await output.cancel()
    throw err
  }
  await output.finalize()
  if (!target.buffer) throw new Error('The encoder produced no file.')
  return target.buffer
}
