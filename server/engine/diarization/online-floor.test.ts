import { describe, expect, it } from 'vitest'
import { floorHolders, floorRuns, latestChange, runSegments } from './online-floor.ts'
import { keepLatest } from './online-segmented.ts'

/** A track heard on the frames marked 1 in `pattern`, from grid frame `start`. */
const track = (pattern: string, start = 0) => ({
  start,
  heard: Uint8Array.from(pattern, (c) => (c === '1' ? 1 : 0)),
})

describe('floorHolders', () => {
  it('gives each frame to the one chain heard, keeps the holder through overlap, skips chains not eligible', () => {
    const a = track('1111110000')
    const b = track('0000111111')
    const noise = track('1000000001')
    expect([...floorHolders([a, b, noise], 10, [true, true, false])]).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
    // A chain whose track starts later on the grid is read at its own offset.
    expect([...floorHolders([track('11'), track('11', 3)], 6, [true, true])]).toEqual([0, 0, -1, 1, 1, -1])
  })
})

describe('floorRuns', () => {
  it('joins silence inside one holder, and gives a flicker shorter than the minimum to the run before', () => {
    const holders = Int32Array.from([0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1])
    expect(floorRuns(holders, 2)).toEqual([
      { holder: 0, from: 0, to: 10 },
      { holder: 1, from: 10, to: 14 },
    ])
  })

  it('gives a short opening run to the holder after it', () => {
    expect(floorRuns(Int32Array.from([1, 0, 0, 0, 0]), 2)).toEqual([{ holder: 0, from: 0, to: 5 }])
  })
})

describe('latestChange', () => {
  const runs = [
    { holder: 0, from: 0, to: 60 },
    { holder: 1, from: 70, to: 100 },
    { holder: 0, from: 100, to: 120 },
  ]
  it('finds the latest change whose new holder and the one before held the floor long enough', () => {
    expect(latestChange(runs, 20, 20)).toBe(100)
    // The last run is too short: the change before it, cut halfway through the silence.
    expect(latestChange(runs, 30, 30)).toBe(65)
    expect(latestChange(runs, 61, 10)).toBeNull()
    expect(latestChange(runs.slice(0, 1), 1, 1)).toBeNull()
  })
})

describe('runSegments', () => {
  it('covers the stretch, cut halfway between holders', () => {
    const runs = [
      { holder: 5, from: 10, to: 40 },
      { holder: 7, from: 60, to: 90 },
    ]
    expect(runSegments(runs, (h) => h - 5, 0.01, 1)).toEqual([
      { speaker: 0, start: 0, end: 0.5 },
      { speaker: 2, start: 0.5, end: 1 },
    ])
  })
})

describe('keepLatest', () => {
  const excerpt = (from: number, n: number) => {
    const samples = Float32Array.from({ length: n }, (_, i) => from + i)
    return { samples, seconds: n / 16_000 }
  }
  it("keeps the latest seconds of a speaker's voice, the new turn's last", () => {
    const kept = keepLatest(excerpt(0, 16_000), excerpt(100_000, 8_000), 1)
    expect(kept.samples.length).toBe(16_000)
    expect(kept.samples[0]).toBe(8_000)
    expect(kept.samples.at(-1)).toBe(107_999)
    expect(keepLatest(undefined, excerpt(0, 32_000), 1).samples[0]).toBe(16_000)
  })
})
