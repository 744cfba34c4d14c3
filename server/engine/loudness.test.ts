import { describe, expect, it } from 'vitest'
import { integratedLoudness } from '../../core/loudness.ts'
import { normalizeLoudness, PEAK_CEILING_DBFS } from './loudness.ts'

const RATE = 24_000
const sine = (hz: number, amplitude: number, seconds = 3) =>
  Int16Array.from({ length: seconds * RATE }, (_, i) =>
    Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / RATE)),
  )

describe('normalizeLoudness', () => {
  it('brings a quiet utterance to the target', () => {
    const out = normalizeLoudness(sine(500, 0.05), RATE, -16)
    expect(integratedLoudness(out, RATE)).toBeCloseTo(-16, 1)
  })

  it('never lifts the peak above the ceiling, and still reaches the target', () => {
    // A spiky signal: quiet tone plus rare full-scale clicks; reaching −16 LUFS would clip the clicks.
    const spiky = sine(500, 0.02)
    for (let i = 0; i < spiky.length; i += RATE) spiky[i] = 32000
    const out = normalizeLoudness(spiky, RATE, -16)
    const peak = out.reduce((m, s) => Math.max(m, Math.abs(s)), 0)
    expect(20 * Math.log10(peak / 32767)).toBeLessThanOrEqual(PEAK_CEILING_DBFS + 0.01)
    // The limiter holds the clicks down, so the target is still reached.
    expect(Math.abs(integratedLoudness(out, RATE) + 16)).toBeLessThan(0.5)
  })
})
