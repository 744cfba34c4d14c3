import { describe, expect, it } from 'vitest'
import { FRAME_SAMPLES, frameLevels, planUtterances } from './utterances.ts'

const RATE = 16_000

/** Builds audio from pieces: a tone at a level (dBFS peak) or quiet noise, for a number of seconds. */
function audio(...pieces: Array<{ tone?: number; seconds: number }>): Float32Array {
  const out = new Float32Array(Math.round(pieces.reduce((s, p) => s + p.seconds, 0) * RATE))
  let at = 0
  let seed = 7
  for (const { tone, seconds } of pieces) {
    const n = Math.round(seconds * RATE)
    for (let i = 0; i < n; i++) {
      seed = (Math.imul(seed, 1664525) + 1013904223) | 0
      const noise = (seed / 2 ** 31) * 10 ** (-70 / 20)
      out[at + i] =
        tone === undefined ? noise : 10 ** (tone / 20) * Math.sin((2 * Math.PI * 220 * i) / RATE) + noise
    }
    at += n
  }
  return out
}

const plan = (a: Float32Array): Array<[number, number]> =>
  planUtterances(frameLevels(a)).map((u) => [
    (u.startFrame * FRAME_SAMPLES) / RATE,
    (u.endFrame * FRAME_SAMPLES) / RATE,
  ])

describe('planUtterances', () => {
  it('finds nothing in digital silence, in quiet noise or in audio shorter than a frame', () => {
    expect(plan(new Float32Array(RATE * 3))).toEqual([])
    expect(plan(audio({ seconds: 3 }))).toEqual([])
    expect(plan(new Float32Array(100).fill(0.5))).toEqual([])
  })

  it('cuts at long pauses, keeps short ones inside, and pads each utterance by 0.3 s', () => {
    const twoPhrases = audio(
      { seconds: 1 },
      { tone: -20, seconds: 1 },
      { seconds: 0.5 },
      { tone: -20, seconds: 1 },
      { seconds: 2 },
      { tone: -26, seconds: 1 },
      { seconds: 1 },
    )
    expect(plan(twoPhrases)).toEqual([
      [0.7, 3.8],
      [5.2, 6.8],
    ])
  })

  it('drops a click', () => {
    expect(plan(audio({ seconds: 1 }, { tone: -10, seconds: 0.05 }, { seconds: 1 }))).toEqual([])
  })

  it('splits speech without long pauses into pieces of 10–20 s that cover it, cut at quiet points', () => {
    // Speech whose quiet moments (between words, in closures) are only a few tenths of a second each.
    const pieces = Array.from({ length: 30 }, () => [
      { tone: -20, seconds: 1.7 },
      { tone: -45, seconds: 0.3 },
    ]).flat()
    const utterances = plan(audio(...pieces))
    expect(utterances.length).toBe(4)
    expect(utterances[0]?.[0]).toBe(0)
    expect(utterances.at(-1)?.[1]).toBeCloseTo(59.7 + 0.3, 5)
    for (const [i, [start, end]] of utterances.entries()) {
      expect(end - start).toBeLessThanOrEqual(20)
      if (i === 0) continue
      expect(start).toBe(utterances[i - 1]?.[1])
      // Each cut falls in a quiet 0.3 s.
      expect(start % 2).toBeGreaterThanOrEqual(1.7)
    }
  })
})
