import { describe, expect, it } from 'vitest'
import { isUnknownSize, readWav, riffChunks, WAVE_FORMAT_EXTENSIBLE, waveForm } from './wav.ts'

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0))
const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff]
const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]
const zeros = (n: number) => new Array<number>(n).fill(0)
const bytes = (...parts: number[][]) => Uint8Array.from(parts.flat())

/** A "fmt " body: tag, channels, rate, byte rate, block align, bits (16 bytes), or 40 for the extensible form. */
function fmtBody(tag: number, channels: number, rate: number, bits: number, subFormat?: number): number[] {
  const basic = [...u16(tag), ...u16(channels), ...u32(rate), ...u32(0), ...u16(0), ...u16(bits)]
  if (subFormat === undefined) return basic
  // cbSize 22, valid bits, channel mask, then the 16-byte GUID whose first two bytes are the real tag.
  return [...basic, ...u16(22), ...u16(bits), ...u32(0), ...u16(subFormat), ...zeros(14)]
}

function wav(opts: { fmt?: number[]; before?: number[]; dataSize: number; present: number; form?: string }) {
  const fmt = opts.fmt ?? fmtBody(1, 1, 24_000, 16)
  return bytes(
    ascii(opts.form ?? 'RIFF'),
    u32(0),
    ascii('WAVE'),
    opts.before ?? [],
    ascii('fmt '),
    u32(fmt.length),
    fmt,
    ascii('data'),
    u32(opts.dataSize),
    zeros(opts.present),
  )
}

describe('waveForm', () => {
  it('names the RIFF form of a WAVE file, null for anything else', () => {
    expect(waveForm(wav({ dataSize: 0, present: 0 }))).toBe('RIFF')
    expect(waveForm(wav({ dataSize: 0, present: 0, form: 'RIFX' }))).toBe('RIFX')
    expect(waveForm(wav({ dataSize: 0, present: 0, form: 'RF64' }))).toBe('RF64')
    expect(waveForm(bytes(ascii('RIFF'), u32(4), ascii('AVI ')))).toBeNull()
    expect(waveForm(bytes(ascii('RIFF')))).toBeNull()
    expect(waveForm(new Uint8Array(0))).toBeNull()
  })
})

describe('riffChunks', () => {
  it('walks chunk headers up to and including "data", padding odd sizes', () => {
    const list = [...ascii('LIST'), ...u32(3), 1, 2, 3, 0] // odd size, one pad byte
    const chunks = riffChunks(wav({ before: list, dataSize: 4, present: 4 }))
    expect(chunks.map((c) => [c.id, c.body, c.size])).toEqual([
      ['LIST', 20, 3],
      ['fmt ', 32, 16],
      ['data', 56, 4],
    ])
  })

  it('stops where a header no longer fits', () => {
    const cut = wav({ dataSize: 4, present: 4 }).subarray(0, 40)
    expect(riffChunks(cut).map((c) => c.id)).toEqual(['fmt '])
  })
})

describe('readWav', () => {
  it('reads fmt and where the samples are', () => {
    const header = readWav(wav({ fmt: fmtBody(3, 2, 16_000, 32), dataSize: 64, present: 64 }))
    expect(header?.fmt).toEqual({ formatTag: 3, channels: 2, sampleRate: 16_000, bitsPerSample: 32 })
    expect(header?.data).toEqual({ offset: 44, declared: 64, unknownSize: false, bytes: 64 })
  })

  it('resolves WAVE_FORMAT_EXTENSIBLE to its sub-format', () => {
    const header = readWav(
      wav({ fmt: fmtBody(WAVE_FORMAT_EXTENSIBLE, 1, 48_000, 24, 1), dataSize: 6, present: 6 }),
    )
    expect(header?.fmt).toMatchObject({ formatTag: 1, bitsPerSample: 24, sampleRate: 48_000 })
    expect(header?.data?.offset).toBe(12 + 8 + 40 + 8)
  })

  it('clips a declared size to the bytes present', () => {
    expect(readWav(wav({ dataSize: 1000, present: 10 }))?.data).toMatchObject({ declared: 1000, bytes: 10 })
  })

  it("reads a streaming writer's 0 and 0xFFFFFFFF as to the end of the file", () => {
    for (const size of [0, 0xffffffff]) {
      expect(isUnknownSize(size)).toBe(true)
      expect(readWav(wav({ dataSize: size, present: 30 }))?.data).toMatchObject({
        unknownSize: true,
        bytes: 30,
      })
    }
    expect(isUnknownSize(30)).toBe(false)
  })

  it('has no data when the bytes end before it, no fmt when its body is cut', () => {
    const whole = wav({ dataSize: 4, present: 4 })
    expect(readWav(whole.subarray(0, 40))).toMatchObject({ fmt: { formatTag: 1 }, data: null })
    expect(readWav(whole.subarray(0, 30))).toMatchObject({ fmt: null, data: null })
  })

  it('is null for RIFX, RF64 and what is not WAVE', () => {
    expect(readWav(wav({ dataSize: 4, present: 4, form: 'RIFX' }))).toBeNull()
    expect(readWav(wav({ dataSize: 4, present: 4, form: 'RF64' }))).toBeNull()
    expect(readWav(new TextEncoder().encode('ID3 not a wav at all'))).toBeNull()
  })

  it('reads a view into a larger buffer from the view’s start', () => {
    const file = wav({ dataSize: 4, present: 4 })
    const padded = new Uint8Array(file.length + 7)
    padded.set(file, 7)
    expect(readWav(padded.subarray(7))?.data).toMatchObject({ offset: 44, bytes: 4 })
  })
})
