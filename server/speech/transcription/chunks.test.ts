import { describe, expect, it } from 'vitest'
import { type Chunk, type Pause, pausesBetween, planChunks, planPieces, type SampleRange } from './chunks.ts'

const RATE = 1000

/** Noise everywhere except silent stretches of 0.2 s around the given seconds. */
function noiseWithGaps(seconds: number, gaps: number[]) {
  const out = new Float32Array(seconds * RATE)
  let seed = 1
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    out[i] = (seed / 2 ** 31 - 0.5) * 0.5
  }
  for (const g of gaps) out.fill(0, Math.round((g - 0.1) * RATE), Math.round((g + 0.1) * RATE))
  return out
}

/** Contiguous, covering, each at most `max` seconds. */
function expectCover(pieces: SampleRange[], length: number, max = 10) {
  expect(pieces[0]?.start).toBe(0)
  expect(pieces.at(-1)?.end).toBe(length)
  for (let i = 1; i < pieces.length; i++) expect(pieces[i]?.start).toBe(pieces[i - 1]?.end)
  for (const p of pieces) {
    expect(p.end).toBeGreaterThan(p.start)
    expect(p.end - p.start).toBeLessThanOrEqual(max * RATE)
  }
}

describe('pausesBetween', () => {
  it('lists the stretches before, between and after speech regions', () => {
    expect(
      pausesBetween(
        [
          { start: 1, end: 2 },
          { start: 2, end: 3 },
          { start: 4, end: 5 },
        ],
        6,
      ),
    ).toEqual([
      { start: 0, end: 1 },
      { start: 3, end: 4 },
      { start: 5, end: 6 },
    ])
    expect(pausesBetween([], 3)).toEqual([{ start: 0, end: 3 }])
    expect(pausesBetween([{ start: 0, end: 3 }], 3)).toEqual([])
  })
})

describe('planPieces', () => {
  it('keeps audio of at most 10 s whole, including empty audio', () => {
    expect(planPieces(new Float32Array(10 * RATE), RATE, [])).toEqual([{ start: 0, end: 10 * RATE }])
    expect(planPieces(new Float32Array(0), RATE, [])).toEqual([{ start: 0, end: 0 }])
  })

  it('cuts in the longest pauses, at their quietest point, until every piece is at most 10 s', () => {
    const audio = noiseWithGaps(30, [6, 12.5, 19, 25])
    // The detector's pauses are wider than the silence; the cut goes to the silent part.
    const pauses = [
      { start: 5.7, end: 6.5 },
      { start: 12.2, end: 12.7 },
      { start: 18.5, end: 19.15 },
      { start: 24.95, end: 25.5 },
    ]
    const pieces = planPieces(audio, RATE, pauses)
    expectCover(pieces, audio.length)
    const cuts = pieces.slice(1).map((p) => p.start / RATE)
    // 30 s needs at least three cuts; the longest pauses (6 s, 19 s) go first, then 12.5 s or 25 s as needed.
    expect(cuts).toContain(6)
    expect(cuts).toContain(19)
    for (const cut of cuts) expect([6, 12.5, 19, 25].some((g) => Math.abs(cut - g) <= 0.1)).toBe(true)
  })

  it('cuts where there is no pause at the quietest point between 5 and 10 s into the piece', () => {
    const audio = noiseWithGaps(25, [7.5, 16])
    const pieces = planPieces(audio, RATE, [])
    expectCover(pieces, audio.length)
    expect(pieces[0]?.end).toBe(7.5 * RATE)
    expect(pieces[1]?.end).toBe(16 * RATE)
    // A uniform signal still gets cut, within the cap.
    expectCover(planPieces(new Float32Array(95 * RATE).fill(0.1), RATE, []), 95 * RATE)
  })

  it('never leaves a piece shorter than the minimum for a pause at the edge', () => {
    const audio = noiseWithGaps(12, [0.5, 11.5])
    const pieces = planPieces(audio, RATE, [
      { start: 0.3, end: 0.7 },
      { start: 11.3, end: 11.7 },
    ])
    expectCover(pieces, audio.length)
    for (const p of pieces) expect(p.end - p.start).toBeGreaterThanOrEqual(1 * RATE)
  })
})

describe('planChunks', () => {
  it('plans chunks of about 20 s, made of pieces of at most 10 s, asking for pauses only about 30 s ahead', async () => {
    const gaps = [4, 9, 13, 18.5, 23, 27, 33, 38, 44, 51, 56, 62, 67]
    const audio = noiseWithGaps(70, gaps)
    const asked: number[] = []
    const all: Pause[] = gaps.map((g) => ({ start: g - 0.15, end: g + 0.15 }))
    const source = {
      pausesUntil: async (seconds: number) => {
        asked.push(seconds)
        return all.filter((p) => p.start < seconds)
      },
    }
    const chunks: Chunk[] = []
    for await (const chunk of planChunks(audio, RATE, source)) {
      chunks.push(chunk)
      // The first chunk is planned from the first 31 s only.
      if (chunks.length === 1) expect(asked).toEqual([31])
    }
    expectCover(chunks, audio.length, 30)
    const pieces = chunks.flatMap((c) => c.pieces)
    expectCover(pieces, audio.length)
    for (const c of chunks) {
      expect(c.pieces[0]?.start).toBe(c.start)
      expect(c.pieces.at(-1)?.end).toBe(c.end)
    }
    // Every cut is one of the pauses.
    for (const p of pieces.slice(1)) expect(gaps.some((g) => Math.abs(p.start / RATE - g) <= 0.1)).toBe(true)
    expect(chunks.length).toBeGreaterThanOrEqual(3)
    for (const c of chunks.slice(0, -1))
      expect(Math.abs((c.end - c.start) / RATE - 20)).toBeLessThanOrEqual(6)
  })

  it('yields nothing for empty audio', async () => {
    const chunks: Chunk[] = []
    for await (const c of planChunks(new Float32Array(0), RATE, { pausesUntil: async () => [] }))
      chunks.push(c)
    expect(chunks).toEqual([])
  })
})
