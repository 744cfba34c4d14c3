/**
 * The two streams decoded by their decoder's own parser, rather than packet by packet behind mediabunny:
 * - Ogg Vorbis (`@wasm-audio-decoders/ogg-vorbis`, libvorbis): the package takes Ogg pages, not the bare Vorbis
 *   packets mediabunny yields, and no maintained npm decoder takes those. Vorbis in WebM/Matroska, which no browser
 *   records, is therefore not supported.
 * - ADTS AAC (`@audio/decode-aac`, FAAD2): mediabunny's ADTS demuxer stops at the first bytes that are not a frame,
 *   dropping the rest of a stream with junk in it without a word; the decoder's own parser searches for the next one.
 *
 * Both are fed the file in pieces and hand each piece's audio on at once, so that a long file is never held decoded
 * in all its channels, and a too-long one can be stopped early.
 */

import { id3v2Length } from '../../../schema/audio-format.ts'
import { loadAacDecoder } from './aac-decoder.ts'
import { AudioDecodeError } from './decode-error.ts'

/** Receives each piece of decoded audio: one plane per channel. */
export type PlanesSink = (channelData: Float32Array[], sampleRate: number) => void

const CHUNK_BYTES = 256 * 1024

/** As for packet decoding (decode-codecs.ts): a few damaged frames are concealed, more mean a broken file. */
const MAX_BAD_FRAME_SHARE = 0.1

export async function decodeOggVorbis(bytes: Uint8Array, sink: PlanesSink): Promise<void> {
  const { OggVorbisDecoder } = await load('Vorbis', () => import('@wasm-audio-decoders/ogg-vorbis'))
  const decoder = new OggVorbisDecoder()
  try {
    await decoder.ready
    let errors = 0
    let frames = 0
    const take = (out: {
      channelData: Float32Array[]
      samplesDecoded: number
      sampleRate: number
      errors: unknown[]
    }) => {
      errors += out.errors.length
      frames += out.samplesDecoded
      if (out.samplesDecoded > 0) sink(out.channelData, out.sampleRate)
    }
    for (let pos = 0; pos < bytes.length; pos += CHUNK_BYTES)
      take(await decoder.decode(bytes.subarray(pos, pos + CHUNK_BYTES)))
    take(await decoder.flush())
    // A Vorbis block is 2048 samples at most at the usual settings: an error stands for about one.
    checkBadFrames(errors, frames / 2048, 'Vorbis')
  } finally {
    decoder.free()
  }
}

export async function decodeAdts(bytes: Uint8Array, sink: PlanesSink): Promise<void> {
  const { decoder: createDecoder } = await loadAacDecoder()
  const decoder = await createDecoder()
  try {
    let errors = 0
    let frames = 0
    // FAAD2 looks for a frame at the very start, where an ID3v2 tag may sit instead.
    for (let pos = id3v2Length(bytes); pos < bytes.length; pos += CHUNK_BYTES) {
      // The decoder keeps a frame split between two pieces for the next call.
      const out = decoder.decode(bytes.subarray(pos, pos + CHUNK_BYTES)) as {
        channelData: Float32Array[]
        sampleRate: number
        errors?: number
      }
      errors += out.errors ?? 0
      const length = out.channelData[0]?.length ?? 0
      frames += length
      if (length > 0) sink(out.channelData, out.sampleRate)
    }
    checkBadFrames(errors, frames / 1024, 'AAC')
  } finally {
    decoder.free()
  }
}

function checkBadFrames(bad: number, good: number, codec: string): void {
  if (bad > Math.max(2, (bad + good) * MAX_BAD_FRAME_SHARE)) {
    throw new AudioDecodeError('corrupt_audio', `${bad} ${codec} frames could not be decoded`)
  }
}

async function load<T>(codec: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer()
  } catch (error) {
    throw new AudioDecodeError('decoder_unavailable', `The ${codec} decoder could not be loaded`, {
      cause: error,
    })
  }
}
