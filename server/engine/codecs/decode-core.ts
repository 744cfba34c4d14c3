/**
 * The decoding itself, run inside a decode worker (decode-worker.ts; decode.ts explains why).
 *
 * The format is sniffed from the bytes, and a file cut short or structurally damaged is refused before any decoding
 * (decode-integrity.ts). mediabunny then demuxes WAV, MP3, Ogg Opus, FLAC, WebM/Matroska and MP4/MOV and decodes PCM
 * itself; their compressed codecs go to WASM decoders registered with it (decode-codecs.ts). ADTS AAC and Ogg Vorbis
 * go to their decoders' own parsers instead (decode-whole.ts).
 */
import {
  ADTS,
  type AudioCodec,
  type AudioSample,
  AudioSampleSink,
  BufferSource,
  FLAC,
  Input,
  type InputFormat,
  MATROSKA,
  MP3,
  MP4,
  OGG,
  PCM_AUDIO_CODECS,
  QTFF,
  WAVE,
  WEBM,
} from 'mediabunny'
import { concat } from '../../../core/concat.ts'
import { sniffFormat, type UploadFormat } from '../../../schema/audio-format.ts'
import { isWasmCodec, loadWasmDecoder } from './decode-codecs.ts'
import { AudioDecodeError } from './decode-error.ts'
import { findDamage, flacStreamInfo } from './decode-integrity.ts'
import { resampleMono } from './decode-resample.ts'
import { decodeAdts, decodeOggVorbis, type PlanesSink } from './decode-whole.ts'
import { oggVorbisStream } from './ogg-pages.ts'

export interface DecodedAudio {
  /** Mono: the channels' average. */
  samples: Float32Array
  sampleRate: number
  format: UploadFormat
  durationSeconds: number
}

export interface CoreDecodeOptions {
  /** Resample to this rate; the source's rate when absent. */
  targetRate?: number
  /** Fail with `too_long` as soon as decoding passes this point. */
  maxDurationSeconds: number
}

/** Only the sniffed format's demuxer is offered to mediabunny, so it cannot reinterpret the file as another. */
const CONTAINERS: Record<UploadFormat, InputFormat[]> = {
  wav: [WAVE],
  mp3: [MP3],
  ogg: [OGG],
  aac: [ADTS], // unused: ADTS goes to its decoder's own parser, see decode-whole.ts
  flac: [FLAC],
  webm: [WEBM, MATROSKA],
  mp4: [MP4, QTFF],
}

export async function decodeInThisThread(bytes: Uint8Array, opts: CoreDecodeOptions): Promise<DecodedAudio> {
  const format = sniffFormat(bytes)
  if (!format) {
    throw new AudioDecodeError('unsupported_format', 'Not a WAV, MP3, Ogg, AAC, FLAC, WebM or MP4 audio file')
  }
  const damage = findDamage(bytes, format)
  if (damage) {
    throw new AudioDecodeError('corrupt_audio', `The ${format} file is cut short or damaged: ${damage}`)
  }

  let decoded: MonoPcm
  try {
    const mono = new MonoBuilder(opts.maxDurationSeconds)
    const ownParser = ownParserDecoder(bytes, format)
    if (ownParser) await ownParser(bytes, (planes, rate) => mono.addPlanes(planes, rate))
    else await decodeWithMediabunny(bytes, format, mono)
    decoded = mono.finish()
  } catch (error) {
    if (error instanceof AudioDecodeError) throw error
    // Anything a demuxer or decoder throws on input whose magic number matched means the data is broken.
    throw new AudioDecodeError('corrupt_audio', `Broken ${format} file: ${messageOf(error)}`, {
      cause: error,
    })
  }
  if (format === 'flac') checkFlacLength(bytes, decoded)

  const sampleRate = opts.targetRate ?? decoded.sampleRate
  const samples = await resampleMono(decoded.samples, decoded.sampleRate, sampleRate)
  return { samples, sampleRate, format, durationSeconds: samples.length / sampleRate }
}

interface MonoPcm {
  samples: Float32Array
  sampleRate: number
}

/**
 * ADTS and Ogg Vorbis go to their decoders' own parsers (decode-whole.ts says why); Ogg Vorbis interleaved with
 * other streams (a video) as its own pages.
 */
function ownParserDecoder(
  bytes: Uint8Array,
  format: UploadFormat,
): ((bytes: Uint8Array, sink: PlanesSink) => Promise<void>) | null {
  if (format === 'aac') return decodeAdts
  const vorbis = format === 'ogg' ? oggVorbisStream(bytes) : null
  return vorbis && ((_bytes, sink) => decodeOggVorbis(vorbis, sink))
}

async function decodeWithMediabunny(
  bytes: Uint8Array,
  format: UploadFormat,
  mono: MonoBuilder,
): Promise<void> {
  const input = new Input({ source: new BufferSource(bytes), formats: CONTAINERS[format] })
  try {
    const track = await input.getPrimaryAudioTrack()
    if (!track) throw new AudioDecodeError('corrupt_audio', `The ${format} file has no audio track`)
    const codec = track.codec
    if (!codec || !isDecodable(codec)) {
      throw new AudioDecodeError(
        'unsupported_format',
        `The ${format} file holds ${codec ?? 'an unknown'} audio`,
      )
    }
    if (isWasmCodec(codec)) await loadWasmDecoder(codec)
    if (!(await track.canDecode())) {
      throw new AudioDecodeError('decoder_unavailable', `No ${codec} decoder is available`)
    }

    for await (const sample of new AudioSampleSink(track).samples()) {
      try {
        mono.addSample(sample)
      } finally {
        sample.close()
      }
    }
  } finally {
    input.dispose()
  }
}

/** A FLAC stream's frames can only be counted by decoding them, so its declared length is checked afterwards. */
function checkFlacLength(bytes: Uint8Array, decoded: MonoPcm): void {
  const { totalFrames, maxBlockSize } = flacStreamInfo(bytes)
  // One block of slack: encoders disagree on whether the last, partial block is counted.
  if (totalFrames > 0 && decoded.samples.length + maxBlockSize < totalFrames) {
    throw new AudioDecodeError(
      'corrupt_audio',
      `The flac file is cut short or damaged: ${decoded.samples.length} of ${totalFrames} samples decode`,
    )
  }
}

function isDecodable(codec: AudioCodec): boolean {
  return isWasmCodec(codec) || (PCM_AUDIO_CODECS as readonly AudioCodec[]).includes(codec)
}

/** Downmixes decoded audio as it arrives, so that a long file is never held in all its channels at once. */
class MonoBuilder {
  private readonly chunks: Float32Array[] = []
  private length = 0
  private sampleRate = 0
  private scratch = new Float32Array(0)

  constructor(private readonly maxSeconds: number) {}

  addSample(sample: AudioSample): void {
    const frames = sample.numberOfFrames
    if (this.scratch.length < frames) this.scratch = new Float32Array(frames)
    const plane = this.scratch.subarray(0, frames)
    const mono = new Float32Array(frames)
    for (let channel = 0; channel < sample.numberOfChannels; channel++) {
      sample.copyTo(plane, { planeIndex: channel, format: 'f32-planar' })
      addScaled(mono, plane, 1 / sample.numberOfChannels)
    }
    this.push(mono, sample.sampleRate)
  }

  addPlanes(planes: Float32Array[], sampleRate: number): void {
    const mono = new Float32Array(planes[0]?.length ?? 0)
    for (const plane of planes) addScaled(mono, plane, 1 / planes.length)
    this.push(mono, sampleRate)
  }

  private push(mono: Float32Array, sampleRate: number): void {
    if (mono.length === 0) return
    if (this.sampleRate === 0) this.sampleRate = sampleRate
    if (sampleRate !== this.sampleRate) {
      throw new AudioDecodeError(
        'corrupt_audio',
        `The sample rate changes mid-stream (${this.sampleRate} → ${sampleRate})`,
      )
    }
    this.chunks.push(mono)
    this.length += mono.length
    if (this.length > this.maxSeconds * this.sampleRate) {
      throw new AudioDecodeError('too_long', `The audio is longer than ${this.maxSeconds} s`)
    }
  }

  finish(): MonoPcm {
    if (this.length === 0) throw new AudioDecodeError('corrupt_audio', 'The file holds no decodable audio')
    return { samples: concat(this.chunks, Float32Array), sampleRate: this.sampleRate }
  }
}

function addScaled(target: Float32Array, source: Float32Array, scale: number): void {
  const n = Math.min(target.length, source.length)
  for (let i = 0; i < n; i++) target[i] = (target[i] ?? 0) + (source[i] ?? 0) * scale
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
