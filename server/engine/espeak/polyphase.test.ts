import { describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { PolyphaseResampler, polyphaseDesign, TAPS } from './polyphase.ts'

const IN = 22_050
const OUT = 24_000

function tone(hz: number, frames: number, amplitude = 16_000): Int16Array {
  return Int16Array.from({ length: frames }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / IN)),
  )
}

/** Everything `input` gives, pushed in pieces of `step` samples, then flushed. */
function convert(input: Int16Array, step: number, opts: { scalar?: boolean } = {}): Int16Array {
  const r = new PolyphaseResampler(IN, OUT, opts)
  const parts: Int16Array[] = []
  for (let i = 0; i < input.length; i += step) parts.push(r.push(input.subarray(i, i + step)))
  parts.push(r.flush())
  return concat(parts, Int16Array)
}

/** Amplitude of the component at `hz` in `x` at 24 kHz (Goertzel over the middle, Hann-windowed). */
function amplitudeAt(x: Int16Array, hz: number): number {
  const from = 2000
  const n = x.length - 4000
  const coeff = 2 * Math.cos((2 * Math.PI * hz) / OUT)
  let s1 = 0
  let s2 = 0
  let windowSum = 0
  for (let i = 0; i < n; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n)
    windowSum += w
    const s0 = (x[from + i] as number) * w + coeff * s1 - s2
    s2 = s1
    s1 = s0
  }
  return (2 * Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - coeff * s1 * s2))) / windowSum
}

const db = (ratio: number) => 20 * Math.log10(ratio)

describe('PolyphaseResampler 22,050 → 24,000 Hz', () => {
  it('gives exactly round(n × 160/147) samples, whatever the pieces', () => {
    const input = tone(440, 22_050 + 77)
    const expected = Math.round(((22_050 + 77) * 160) / 147)
    for (const step of [1, 37, 2157, 4096, 100_000]) expect(convert(input, step)).toHaveLength(expected)
    expect(new PolyphaseResampler(IN, OUT).flush()).toHaveLength(0)
  })

  it('gives the same samples however the input is cut', () => {
    const input = tone(1234, 30_000)
    const whole = convert(input, 30_000)
    expect(convert(input, 2157)).toEqual(whole)
    expect(convert(input, 13)).toEqual(whole)
  })

  it('computes in WebAssembly what the JavaScript fallback computes, within one step of rounding', () => {
    const input = Int16Array.from({ length: 20_000 }, (_, i) =>
      Math.round(12_000 * Math.sin(i * 0.3) + 9_000 * Math.sin(i * 2.1)),
    )
    const simd = convert(input, 2157)
    const scalar = convert(input, 2157, { scalar: true })
    let worst = 0
    for (let i = 0; i < simd.length; i++)
      worst = Math.max(worst, Math.abs((simd[i] as number) - (scalar[i] as number)))
    expect(worst).toBeLessThanOrEqual(1)
  })

  it('is time-aligned: a tone comes out in phase with the same tone made at 24 kHz', () => {
    const out = convert(tone(500, IN), 2157)
    let error = 0
    let power = 0
    for (let i = 1000; i < 23_000; i++) {
      const ideal = 16_000 * Math.sin((2 * Math.PI * 500 * i) / OUT)
      error += ((out[i] as number) - ideal) ** 2
      power += ideal ** 2
    }
    // Under 70 dB of difference: no delay, no gain error.
    expect(db(Math.sqrt(error / power))).toBeLessThan(-70)
  })

  it('passes 50 Hz–9.6 kHz within 0.1 dB and keeps every image of the input 85 dB down', () => {
    for (const hz of [50, 1000, 4000, 8000, 9000, 9600]) {
      const out = convert(tone(hz, IN), 2157)
      expect(Math.abs(db(amplitudeAt(out, hz) / 16_000))).toBeLessThan(0.1)
      // The input's first image at 22,050 − f lands, at 24 kHz, on 24,000 − (22,050 − f) when above 12 kHz.
      const image = 22_050 - hz
      const where = image > 12_000 ? 24_000 - image : image
      expect(db(amplitudeAt(out, where) / 16_000)).toBeLessThan(-85)
    }
  })

  it('has DC gain of exactly 1 at every phase', () => {
    const { up, table } = polyphaseDesign(IN, OUT)
    for (let phase = 0; phase < up; phase++) {
      let sum = 0
      for (let m = 0; m < TAPS; m++) sum += table[phase * TAPS + m] as number
      expect(sum).toBeCloseTo(1, 5)
    }
  })
})
