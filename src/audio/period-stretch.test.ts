import { describe, expect, it } from 'vitest'
import { bestPeriod, PeriodStretcher, STRETCH_LOOKAHEAD } from './period-stretch.ts'
import { RingBuffer } from './ring-buffer.ts'

const RATE = 24_000

/** A voiced-like sound: a fundamental with two harmonics, so a lag of one period matches and half of it does not. */
const voiced = (hz: number, frames: number, phase = 0) =>
  Float32Array.from({ length: frames }, (_, i) => {
    const t = (2 * Math.PI * hz * i) / RATE + phase
    return 0.5 * Math.sin(t) + 0.25 * Math.sin(2 * t + 0.3) + 0.12 * Math.sin(3 * t + 1.1)
  })

/** Plays everything in the ring through the stretcher, planning an insertion whenever it is ready at `factor`. */
function play(ring: RingBuffer, stretcher: PeriodStretcher, factor: number) {
  const out: number[] = []
  for (let played = 0; ; ) {
    const inserted = stretcher.inserted(played)
    if (inserted !== undefined) {
      out.push(inserted)
      continue
    }
    if (ring.available >= STRETCH_LOOKAHEAD && stretcher.readyFor(factor, played))
      stretcher.plan(ring, played)
    const sample = ring.shift()
    if (sample === undefined) return Float32Array.from(out)
    played++
    out.push(sample)
  }
}

const largestStep = (x: Float32Array) => {
  let step = 0
  for (let i = 1; i < x.length; i++) step = Math.max(step, Math.abs((x[i] ?? 0) - (x[i - 1] ?? 0)))
  return step
}

describe('bestPeriod', () => {
  it.each([90, 120, 180, 250, 380])('finds the period of a %i Hz voice', (hz) => {
    expect(bestPeriod(voiced(hz, STRETCH_LOOKAHEAD, 0.7))).toBeCloseTo(RATE / hz, -0.5)
  })

  it('returns a usable lag for silence', () => {
    const lag = bestPeriod(new Float32Array(STRETCH_LOOKAHEAD))
    expect(lag).toBeGreaterThanOrEqual(60)
    expect(lag).toBeLessThanOrEqual(360)
  })
})

describe('PeriodStretcher', () => {
  it('plans nothing without the lookahead it needs', () => {
    const ring = new RingBuffer(RATE)
    ring.write(voiced(150, STRETCH_LOOKAHEAD - 1))
    const stretcher = new PeriodStretcher()
    expect(stretcher.plan(ring, 0)).toBe(false)
    expect(stretcher.busy(0)).toBe(false)
  })

  it('at 2× doubles the length of a voice, at its pitch, without a step in the wave', () => {
    const source = voiced(150, RATE)
    const ring = new RingBuffer(RATE)
    ring.write(source)
    const out = play(ring, new PeriodStretcher(), 2)
    // Insertions stop when less than the lookahead is left, so the last 30 ms play as they are.
    expect(out.length).toBeGreaterThan(1.9 * RATE)
    expect(out.length).toBeLessThanOrEqual(2 * RATE)
    // A join out of phase would jump by up to the wave's full swing; in phase it moves no more than the wave does.
    expect(largestStep(out)).toBeLessThan(1.05 * largestStep(source))
    // The pitch is kept: the stretched wave still repeats every 160 frames.
    expect(bestPeriod(out.subarray(RATE, RATE + STRETCH_LOOKAHEAD))).toBe(160)
  })

  it('spaces insertions to the factor asked for', () => {
    const ring = new RingBuffer(RATE)
    ring.write(voiced(200, RATE))
    const out = play(ring, new PeriodStretcher(), 1.25)
    expect(out.length / RATE).toBeGreaterThan(1.2)
    expect(out.length / RATE).toBeLessThan(1.27)
  })

  it('inserts nothing at factor 1 and plays the ring untouched', () => {
    const source = voiced(150, 4800)
    const ring = new RingBuffer(RATE)
    ring.write(source)
    expect(play(ring, new PeriodStretcher(), 1)).toEqual(source)
  })

  it('forgets a planned insertion on reset', () => {
    const ring = new RingBuffer(RATE)
    ring.write(voiced(150, 4800))
    const stretcher = new PeriodStretcher()
    expect(stretcher.plan(ring, 0)).toBe(true)
    stretcher.reset()
    expect(stretcher.busy(0)).toBe(false)
    expect(stretcher.inserted(0)).toBeUndefined()
  })
})
