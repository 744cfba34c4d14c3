import { describe, expect, it } from 'vitest'
import { concat } from '../../core/concat.ts'
import { CAPTURE_CHUNK_FRAMES, Pcm16Capture } from './pcm16-capture.ts'

function capture(rate: number, seconds: number, signal: (t: number) => number) {
  const pieces: Int16Array[] = []
  const c = new Pcm16Capture(rate, (pcm) => pieces.push(pcm))
  const total = Math.round(rate * seconds)
  for (let start = 0; start < total; start += 128) {
    const block = Float32Array.from({ length: Math.min(128, total - start) }, (_, i) =>
      signal((start + i) / rate),
    )
    c.push(block)
  }
  c.flush()
  return { pieces, all: concat(pieces, Int16Array) }
}

/** Zero crossings per second of the middle of the signal, as a frequency. */
function frequency(samples: Int16Array, rate: number): number {
  const mid = samples.subarray(Math.floor(samples.length / 4), Math.floor((3 * samples.length) / 4))
  let crossings = 0
  for (let i = 1; i < mid.length; i++) if ((mid[i - 1] as number) < 0 !== (mid[i] as number) < 0) crossings++
  return crossings / 2 / (mid.length / rate)
}

const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0) / 32768

describe('Pcm16Capture', () => {
  it('passes 24 kHz through in 100 ms pieces, clipping and rounding to PCM16', () => {
    const { pieces, all } = capture(24_000, 0.25, (t) => (t < 0.1 ? 2 : -0.5))
    expect(pieces.map((p) => p.length)).toEqual([CAPTURE_CHUNK_FRAMES, CAPTURE_CHUNK_FRAMES, 1200])
    expect(all[0]).toBe(32767)
    expect(all[3000]).toBe(-16384)
  })

  it.each([48_000, 44_100, 16_000])('resamples %s Hz to 24 kHz keeping pitch and level', (rate) => {
    const { all } = capture(rate, 1, (t) => 0.5 * Math.sin(2 * Math.PI * 440 * t))
    expect(Math.abs(all.length - 24_000)).toBeLessThan(10)
    expect(frequency(all, 24_000)).toBeCloseTo(440, -1)
    expect(peak(all)).toBeGreaterThan(0.45)
    expect(peak(all)).toBeLessThan(0.55)
  })

  it('filters out what would fold back when downsampling from 48 kHz', () => {
    // 20 kHz is above the 12 kHz Nyquist of 24 kHz; unfiltered it would alias to 4 kHz at full level.
    const { all } = capture(48_000, 0.5, (t) => 0.5 * Math.sin(2 * Math.PI * 20_000 * t))
    expect(peak(all.subarray(2400))).toBeLessThan(0.1)
  })
})
