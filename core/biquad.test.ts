import { describe, expect, it } from 'vitest'
import { Biquad, type BiquadCoefficients, filtered, highPass, highShelf, lowPass } from './biquad.ts'

/** The steady-state gain of a section for a sine at `frequency` Hz (the peak of the last half second). */
function gainAt(c: BiquadCoefficients, frequency: number, rate = 48_000): number {
  const input = Float64Array.from({ length: rate }, (_, i) => Math.sin((2 * Math.PI * frequency * i) / rate))
  return Math.max(
    ...filtered(input, c)
      .subarray(rate / 2)
      .map(Math.abs),
  )
}
const dcGain = ({ b0, b1, b2, a1, a2 }: BiquadCoefficients) => (b0 + b1 + b2) / (1 + a1 + a2)
const db = (gain: number) => 20 * Math.log10(gain)

describe('biquad', () => {
  it('low-pass: passes DC, −3 dB at the cutoff (Butterworth Q), and cuts above', () => {
    const c = lowPass(48_000, 1000)
    expect(dcGain(c)).toBeCloseTo(1, 9)
    expect(db(gainAt(c, 1000))).toBeCloseTo(-3, 0)
    expect(db(gainAt(c, 10_000))).toBeLessThan(-35)
  })

  it('high-pass: blocks DC, passes what is well above the cutoff', () => {
    const c = highPass(48_000, 38, 0.5)
    expect(dcGain(c)).toBeCloseTo(0, 9)
    expect(gainAt(c, 2000)).toBeCloseTo(1, 2)
  })

  it('high shelf: unity below, the gain above', () => {
    const c = highShelf(48_000, 1500, 4)
    expect(dcGain(c)).toBeCloseTo(1, 9)
    expect(db(gainAt(c, 12_000))).toBeCloseTo(4, 0)
  })

  it('keeps its state from block to block: one signal in pieces filters as the whole', () => {
    const input = Float64Array.from({ length: 1000 }, (_, i) => Math.sin(i / 7) + (i % 13) / 13)
    const whole = filtered(input, lowPass(16_000, 3000))
    const section = new Biquad(lowPass(16_000, 3000))
    const pieces = [input.subarray(0, 333), input.subarray(333, 334), input.subarray(334)]
    const joined = pieces.flatMap((piece) => Array.from(piece, (x) => section.step(x)))
    expect(joined).toEqual(Array.from(whole))
  })
})
