import { describe, expect, it } from 'vitest'
import { PeakAccumulator, peakCountFor, peaksOfSamples, peaksOfWav, wavDuration, wavFormat } from './peaks.ts'

/** A WAV file with the given samples (−1…1) per channel, interleaved. */
function wav(opts: {
  format: 1 | 3
  bits: number
  rate: number
  channels: number
  frames: (f: number, c: number) => number
  count: number
  extensible?: boolean
  streamed?: boolean
}): ArrayBuffer {
  const bytesPer = opts.bits / 8
  const dataBytes = opts.count * opts.channels * bytesPer
  const fmtSize = opts.extensible ? 40 : 16
  const buffer = new ArrayBuffer(12 + 8 + fmtSize + 8 + dataBytes)
  const v = new DataView(buffer)
  const tag = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) v.setUint8(at + i, s.charCodeAt(i))
  }
  tag(0, 'RIFF')
  v.setUint32(4, buffer.byteLength - 8, true)
  tag(8, 'WAVE')
  tag(12, 'fmt ')
  v.setUint32(16, fmtSize, true)
  v.setUint16(20, opts.extensible ? 0xfffe : opts.format, true)
  v.setUint16(22, opts.channels, true)
  v.setUint32(24, opts.rate, true)
  v.setUint32(28, opts.rate * opts.channels * bytesPer, true)
  v.setUint16(32, opts.channels * bytesPer, true)
  v.setUint16(34, opts.bits, true)
  if (opts.extensible) v.setUint16(20 + 24, opts.format, true) // the sub-format GUID
  const dataAt = 20 + fmtSize
  tag(dataAt, 'data')
  v.setUint32(dataAt + 4, opts.streamed ? 0xffffffff : dataBytes, true)
  let at = dataAt + 8
  for (let f = 0; f < opts.count; f++) {
    for (let c = 0; c < opts.channels; c++) {
      const x = opts.frames(f, c)
      if (opts.format === 3) opts.bits === 64 ? v.setFloat64(at, x, true) : v.setFloat32(at, x, true)
      else if (opts.bits === 8) v.setUint8(at, Math.round(x * 127) + 128)
      else if (opts.bits === 16) v.setInt16(at, Math.round(x * 32767), true)
      else if (opts.bits === 24) {
        const n = Math.round(x * 8_388_607)
        v.setUint8(at, n & 0xff)
        v.setUint8(at + 1, (n >> 8) & 0xff)
        v.setInt8(at + 2, n >> 16)
      } else v.setInt32(at, Math.round(x * 2_147_483_647), true)
      at += bytesPer
    }
  }
  return buffer
}

describe('peakCountFor', () => {
  it.each([
    [30, 3000],
    [0.004, 1],
    [7200, 120_000],
    [0, 1],
    [Number.NaN, 1],
  ])('%s s → %s peaks', (duration, count) => {
    expect(peakCountFor(duration)).toBe(count)
  })
})

describe('peaks of samples', () => {
  it('takes the largest absolute value of each slice', () => {
    expect(peaksOfSamples(Float32Array.from([0.1, -0.5, 0.2, 0.3, -0.05, 0.0]), 3)).toEqual([0.5, 0.3, 0.05])
  })

  it('gives the same peaks whether the samples come at once or in pieces', () => {
    const samples = Float32Array.from({ length: 1000 }, (_, i) => Math.sin(i / 7) * (i / 1000))
    const pieces = new PeakAccumulator(samples.length, 37)
    for (let i = 0; i < samples.length; i += 101) pieces.add(samples.subarray(i, i + 101))
    expect(pieces.finish()).toEqual(peaksOfSamples(samples, 37))
  })

  it('clips at 1 and rounds to three decimals', () => {
    expect(peaksOfSamples(Float32Array.from([1.7, 0.12345]), 2)).toEqual([1, 0.123])
  })
})

describe('peaks of WAV files', () => {
  const square = (f: number) => (f < 8000 ? 0.5 : -0.25) // 0.5 for the first half second, then 0.25

  it.each([
    { name: 'PCM16 mono', format: 1, bits: 16 },
    { name: 'PCM8', format: 1, bits: 8 },
    { name: 'PCM24', format: 1, bits: 24 },
    { name: 'PCM32', format: 1, bits: 32 },
    { name: 'float32 (like the diarization recordings)', format: 3, bits: 32 },
    { name: 'float64', format: 3, bits: 64 },
    { name: 'extensible float32', format: 3, bits: 32, extensible: true },
    { name: 'streamed, length unknown', format: 1, bits: 16, streamed: true },
  ] as const)('$name', (c) => {
    const bytes = wav({ ...c, rate: 16_000, channels: 1, count: 16_000, frames: square })
    const f = wavFormat(new DataView(bytes))
    expect(f).toMatchObject({ format: c.format, bitsPerSample: c.bits, channels: 1, sampleRate: 16_000 })
    expect(wavDuration(f as NonNullable<typeof f>)).toBeCloseTo(1)
    const peaks = peaksOfWav(bytes)
    expect(peaks?.duration).toBeCloseTo(1)
    expect(peaks?.data).toHaveLength(100)
    const tolerance = c.bits === 8 ? 0.01 : 0.001
    for (const p of peaks?.data.slice(0, 50) ?? []) expect(Math.abs(p - 0.5)).toBeLessThan(tolerance)
    for (const p of peaks?.data.slice(50) ?? []) expect(Math.abs(p - 0.25)).toBeLessThan(tolerance)
  })

  it('takes the loudest channel of a stereo file', () => {
    const bytes = wav({
      format: 1,
      bits: 16,
      rate: 8000,
      channels: 2,
      count: 800,
      frames: (_f, c) => (c === 0 ? 0.1 : -0.6),
    })
    const peaks = peaksOfWav(bytes)
    expect(peaks?.duration).toBeCloseTo(0.1)
    expect(new Set(peaks?.data)).toEqual(new Set([0.6]))
  })

  it('says null for what is not a WAV it reads', () => {
    expect(peaksOfWav(new TextEncoder().encode('ID3 not a wav at all').buffer as ArrayBuffer)).toBeNull()
    const alaw = wav({ format: 1, bits: 16, rate: 8000, channels: 1, count: 10, frames: () => 0 })
    new DataView(alaw).setUint16(20, 6, true) // A-law
    expect(peaksOfWav(alaw)).toBeNull()
  })
})
