import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { concat } from '../../core/concat.ts'
import { decodeAudio } from '../../server/engine/codecs/decode.ts'
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

/** Real people (FSDD spoken digits, 8 kHz, `shared/data/speakers` beside the repository or `SPEAKERS_DATA`). */
const SPEAKERS_DIR = [
  process.env.SPEAKERS_DATA,
  new URL('../../../shared/data/speakers/', import.meta.url).pathname,
  '/work/shared/data/speakers',
].find((dir): dir is string => Boolean(dir) && existsSync(join(dir as string, '0_george_0.wav')))

/** One take of the ten digits by `who`, at the player's rate. */
async function counting(who: string): Promise<Float32Array> {
  const parts: Float32Array[] = []
  for (let digit = 0; digit < 10; digit++) {
    const bytes = readFileSync(join(SPEAKERS_DIR as string, `${digit}_${who}_0.wav`))
    parts.push((await decodeAudio(bytes, { targetRate: RATE })).samples)
  }
  return concat(parts, Float32Array)
}

const energy = (x: Float32Array) => x.reduce((n, v) => n + v * v, 0)

/** The insertion the stretcher plans for `ahead` (its period is where the inserted frames begin). */
function insertionFor(ahead: Float32Array): Float32Array {
  const ring = new RingBuffer(ahead.length)
  ring.write(ahead)
  const stretcher = new PeriodStretcher()
  stretcher.plan(ring, 0)
  let period = 1
  let first = stretcher.inserted(period)
  while (first === undefined) first = stretcher.inserted(++period)
  const insertion = [first]
  for (let next = stretcher.inserted(period); next !== undefined; next = stretcher.inserted(period))
    insertion.push(next)
  return Float32Array.from(insertion)
}

describe.skipIf(!SPEAKERS_DIR)('PeriodStretcher on real voices', () => {
  it.each(['george', 'jackson', 'nicolas'])(
    "inserts periods of %s in phase: the fade keeps the voice's level instead of cancelling it",
    async (who) => {
      const voice = await counting(who)
      const ratios: number[] = []
      for (let at = 0; at + STRETCH_LOOKAHEAD <= voice.length; at += STRETCH_LOOKAHEAD) {
        const ahead = voice.slice(at, at + STRETCH_LOOKAHEAD)
        if (energy(ahead) / ahead.length < 1e-4) continue // pauses between digits: nothing to hear
        const insertion = insertionFor(ahead)
        const period = insertion.length
        const faded = (energy(ahead.subarray(0, period)) + energy(ahead.subarray(period, 2 * period))) / 2
        ratios.push(energy(insertion) / faded)
      }
      // Two signals a period apart add in phase and keep the level (ratio about 1); faded at a lag that is not the
      // period they partly cancel (about 2/3 on average for unrelated signals).
      ratios.sort((a, b) => a - b)
      expect(ratios.length).toBeGreaterThan(20)
      expect(ratios[Math.floor(ratios.length / 2)]).toBeGreaterThan(0.9)
    },
  )
})
