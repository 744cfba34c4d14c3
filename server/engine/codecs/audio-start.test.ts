import { describe, expect, it } from 'vitest'
import { pcm16WavHeader } from '../../wav.ts'
import { audioStart } from './audio-start.ts'
import { type CompressedFormat, encodeCompressed } from './encode.ts'

const RATE = 24_000

async function* tone(seconds: number): AsyncGenerator<Int16Array> {
  yield Int16Array.from({ length: seconds * RATE }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / RATE)),
  )
}

async function streamOf(format: CompressedFormat): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const part of encodeCompressed(format, tone(0.5))) parts.push(part)
  return Buffer.concat(parts)
}

/** What the first bytes past the header must be: the start of a frame or page that carries audio. */
const FIRST_AUDIO: Record<CompressedFormat, (bytes: Buffer) => boolean> = {
  // An MPEG audio frame's 11-bit sync.
  mp3: (b) => b[0] === 0xff && ((b[1] as number) & 0xe0) === 0xe0,
  // ADTS: a 12-bit sync.
  aac: (b) => b[0] === 0xff && ((b[1] as number) & 0xf0) === 0xf0,
  // A FLAC frame: 14-bit sync 0x3ffe, then a reserved 0 bit.
  flac: (b) => b[0] === 0xff && ((b[1] as number) & 0xfe) === 0xf8,
  // An Ogg page whose first packet is no Opus header (those begin "Opus").
  opus: (b) => {
    const data = 27 + (b[26] as number)
    return b.toString('latin1', 0, 4) === 'OggS' && b.toString('latin1', data, data + 4) !== 'Opus'
  },
}

describe('audioStart', () => {
  it('finds no header in PCM and the 44 bytes of our WAV header', () => {
    expect(audioStart('pcm', new Uint8Array(0))).toBe(0)
    const header = pcm16WavHeader(RATE)
    expect(audioStart('wav', header)).toBe(44)
    expect(audioStart('wav', header.subarray(0, 40))).toBeUndefined()
  })

  it('skips an ID3v2 tag before MP3 frames', () => {
    const tag = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 1, 0]) // "ID3", v2.4, size 128 (synchsafe)
    expect(audioStart('mp3', tag)).toBe(10 + 128)
    expect(audioStart('mp3', tag.subarray(0, 6))).toBeUndefined()
  })

  it.for(['mp3', 'aac', 'flac', 'opus'] as const)(
    'points at the first audio frame or page of the %s stream, and is unsure while the header is incomplete',
    async (format) => {
      const stream = await streamOf(format)
      const start = audioStart(format, stream)
      expect(start).toBeDefined()
      expect(FIRST_AUDIO[format](stream.subarray(start))).toBe(true)
      if (start !== undefined && start > 0) {
        expect(audioStart(format, stream.subarray(0, start - 1))).toBeUndefined()
        expect(audioStart(format, stream.subarray(0, start))).toBe(start)
      }
    },
  )
})
