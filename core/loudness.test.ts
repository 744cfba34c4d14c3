import { describe, expect, it } from 'vitest'
import { integratedLoudness, MAX_MATCH_GAIN_DB, matchedGains } from './loudness.ts'

const RATE = 24_000
const sine = (amplitude: number, seconds = 2) =>
  Float32Array.from(
    { length: RATE * seconds },
    (_, i) => amplitude * Math.sin((2 * Math.PI * 997 * i) / RATE),
  )
const db = (gain: number) => 20 * Math.log10(gain)
/** PCM16, as the engine's output and the takes are. */
const pcmSine = (hz: number, amplitude: number, seconds = 3) =>
  Int16Array.from({ length: seconds * RATE }, (_, i) =>
    Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / RATE)),
  )

describe('integratedLoudness (ITU-R BS.1770-4)', () => {
  // Meters must agree within ±0.1 LU; the filter fitted at 24 kHz reads 0.05 LU low here.
  it('reads a full-scale 997 Hz sine as −3.01 LUFS, the standard’s calibration point', () => {
    expect(Math.abs(integratedLoudness(pcmSine(997, 1), RATE) + 3.01)).toBeLessThan(0.1)
  })

  it('falls 20 LU for a sine 20 dB down', () => {
    expect(Math.abs(integratedLoudness(pcmSine(997, 0.1), RATE) + 23.01)).toBeLessThan(0.1)
  })

  it('gates silence out: a tone with long silence reads as the tone', () => {
    const gapped = new Int16Array(6 * RATE)
    gapped.set(pcmSine(997, 0.1, 2), 0)
    expect(integratedLoudness(gapped, RATE)).toBeCloseTo(-23.01, 0)
    expect(integratedLoudness(new Int16Array(RATE), RATE)).toBe(Number.NEGATIVE_INFINITY)
  })
})

describe('integratedLoudness on floats and PCM16', () => {
  it('reads the same level from either form', () => {
    const float = sine(0.25)
    const pcm = Int16Array.from(float, (v) => Math.round(v * 32768))
    expect(integratedLoudness(float, RATE)).toBeCloseTo(integratedLoudness(pcm, RATE), 2)
    // A 997 Hz sine at full scale reads −3.01 LUFS (BS.1770-4 table); a quarter of it 12 dB less.
    expect(Math.abs(integratedLoudness(float, RATE) + 15.05)).toBeLessThan(0.1)
  })
})

describe('matchedGains', () => {
  it('turns the louder take down to the quieter one', () => {
    const g = matchedGains(-16, -21.5)
    expect(g.b).toBe(1)
    expect(db(g.a)).toBeCloseTo(-5.5, 6)
    // Either order.
    expect(matchedGains(-21.5, -16)).toEqual({ a: g.b, b: g.a })
  })

  it('makes measured loudness equal once applied', () => {
    const loud = sine(0.5)
    const quiet = sine(0.1)
    const g = matchedGains(integratedLoudness(loud, RATE), integratedLoudness(quiet, RATE))
    const played = (s: Float32Array, gain: number) =>
      integratedLoudness(
        s.map((v) => v * gain),
        RATE,
      )
    expect(Math.abs(played(loud, g.a) - played(quiet, g.b))).toBeLessThan(0.01)
  })

  it('leaves both as they are when either is unknown or unmeasurable', () => {
    expect(matchedGains(null, -20)).toEqual({ a: 1, b: 1 })
    expect(matchedGains(-20, Number.NEGATIVE_INFINITY)).toEqual({ a: 1, b: 1 })
    expect(matchedGains(-20, -20)).toEqual({ a: 1, b: 1 })
  })

  it('never turns a take down by more than the cap', () => {
    expect(db(matchedGains(-10, -60).a)).toBeCloseTo(-MAX_MATCH_GAIN_DB, 6)
  })
})
