import { describe, expect, it } from 'vitest'
import { clusterChains, joinSmallChains } from './chain-clusters.ts'
import { type LocalSpeakers, speakerCounts } from './local-speakers.ts'
import { activitySpans, reconstruct } from './reconstruct.ts'
import { splitToCount } from './segmented.ts'
import { stitch } from './stitch.ts'

/** Windows of 6 frames, 2 local speakers, 3 frames apart; `rows[w][s]` is a string of 0/1 per frame. */
function local(rows: string[][]): LocalSpeakers {
  const frames = 6
  const speakers = 2
  const activity = rows.map((window) => {
    const a = new Uint8Array(frames * speakers)
    window.forEach((bits, s) => {
      for (let f = 0; f < frames; f++) a[f * speakers + s] = bits[f] === '1' ? 1 : 0
    })
    return a
  })
  return {
    segmenter: { frames, speakers, frameStep: 0.1, frameDuration: 0.1 },
    frames: (rows.length - 1) * 3 + frames,
    starts: rows.map((_, i) => i * 3),
    activity,
  }
}

describe('stitching local speakers of overlapping windows', () => {
  it('links speakers whose activity agrees where the windows overlap, across a swap of local numbers', () => {
    const ls = local([
      ['111000', '000111'],
      ['111000', '000111'].reverse(), // window 1 hears the first voice as its local speaker 1
    ])
    // Window 0's speaker 1 (frames 3–5) is window 1's speaker 1 (frames 0–2 of it), not its speaker 0.
    const chains = stitch(ls, 0.3)
    expect(chains[0 * 2 + 1]).toBe(chains[1 * 2 + 1])
    expect(chains[0 * 2 + 0]).not.toBe(chains[1 * 2 + 1])
  })

  it('never puts two speakers of one window in one chain, and leaves silent local speakers out', () => {
    // Both speakers of window 1 agree with window 0's speaker 0; only one may join it.
    const ls = local([
      ['000111', '000000'],
      ['111000', '111000'],
    ])
    const chains = stitch(ls, 0.3)
    expect(chains[0 * 2 + 1]).toBe(-1)
    expect(chains[1 * 2 + 0]).not.toBe(chains[1 * 2 + 1])
    expect([chains[1 * 2 + 0], chains[1 * 2 + 1]]).toContain(chains[0])
  })
})

describe('clustering chains', () => {
  const similarity = [
    Float64Array.of(1, 0.9, 0.1),
    Float64Array.of(0.9, 1, 0.2),
    Float64Array.of(0.1, 0.2, 1),
  ]
  const none = [new Uint8Array(3), new Uint8Array(3), new Uint8Array(3)]

  it('joins what scores above the threshold and keeps the rest apart', () => {
    expect([...clusterChains(similarity, none, { threshold: 0.5 })]).toEqual([0, 0, 1])
  })

  it('never joins chains heard as different speakers of one window', () => {
    const apart = [Uint8Array.of(0, 1, 0), Uint8Array.of(1, 0, 0), new Uint8Array(3)]
    expect(new Set(clusterChains(similarity, apart, { threshold: 0.5 })).size).toBe(3)
  })

  it('honours a count given, exact, at most or at least', () => {
    expect(new Set(clusterChains(similarity, none, { threshold: 0.5, numSpeakers: 1 })).size).toBe(1)
    expect(new Set(clusterChains(similarity, none, { threshold: 0.5, numSpeakers: 3 })).size).toBe(3)
    expect(new Set(clusterChains(similarity, none, { threshold: 0.5, maxSpeakers: 1 })).size).toBe(1)
    expect(new Set(clusterChains(similarity, none, { threshold: 0.5, minSpeakers: 3 })).size).toBe(3)
  })

  it('forced below the people heard, joins the least-heard group to the one it is most like', () => {
    // Four chains, all different people (every score under the threshold); 0 and 1 score highest together.
    const four = [
      Float64Array.of(Number.NaN, 0.3, 0.1, 0.2),
      Float64Array.of(0.3, Number.NaN, 0.1, 0.1),
      Float64Array.of(0.1, 0.1, Number.NaN, 0.25),
      Float64Array.of(0.2, 0.1, 0.25, Number.NaN),
    ]
    const apart = four.map(() => new Uint8Array(4))
    const seconds = [20, 15, 1, 2]
    // Chain 2 (1 s) joins 3, its likeliest; then {2, 3} (3 s) joins 0: the two long voices stay apart.
    expect([...clusterChains(four, apart, { threshold: 0.5, numSpeakers: 2, seconds })]).toEqual([0, 1, 0, 0])
    // Heard apart from every other group, it still joins one: the count is met.
    apart[2]?.fill(1)
    for (const row of apart) row[2] = 1
    expect(new Set(clusterChains(four, apart, { threshold: 0.5, numSpeakers: 2, seconds })).size).toBe(2)
  })
})

describe('joining small chains', () => {
  // Chains 0 and 1 were compared (speakers 0 and 1, grid frames 0–100 and 200–300); 2–4 are small (4, the most heard, is placed first, far from the rest).
  const track = (start: number, length: number) => ({
    start,
    heard: new Uint8Array(length).fill(1),
    solo: new Uint8Array(length),
  })
  const tracks = [track(0, 100), track(200, 100), track(180, 10), track(110, 10), track(400, 30)]
  const seconds = Float64Array.of(10, 10, 1, 1, 3)
  const apartOf = (pairs: [number, number][]) => {
    const apart = tracks.map(() => new Uint8Array(tracks.length))
    for (const [a, b] of pairs) [(apart[a] as Uint8Array)[b], (apart[b] as Uint8Array)[a]] = [1, 1]
    return apart
  }
  const join = (apart: Uint8Array[], count: { wanted: number; most: number }) => {
    const speakers = Int32Array.of(0, 1, -1, -1, -1)
    joinSmallChains(tracks, [0, 1], speakers, apart, seconds, { ...count, minSpeakerSeconds: 2 })
    return [...speakers]
  }

  it('gives each the speaker heard nearest it in time that it never shared a window with', () => {
    // 2 is next to speaker 1; 3 is next to speaker 0 but shared a window with it; 4 shared one with both and is heard
    // 3 s: a speaker of its own.
    expect(
      join(
        apartOf([
          [3, 0],
          [4, 0],
          [4, 1],
        ]),
        { wanted: 1, most: Number.POSITIVE_INFINITY },
      ),
    ).toEqual([0, 1, 1, 1, 2])
  })

  it('never exceeds a count given, and meets one above the speakers found with the most active', () => {
    expect(
      join(
        apartOf([
          [4, 0],
          [4, 1],
        ]),
        { wanted: 2, most: 2 },
      ),
    ).toEqual([0, 1, 1, 0, 1])
    expect(join(apartOf([]), { wanted: 3, most: 3 })).toEqual([0, 1, 1, 0, 2])
  })
})

describe('reconstruction', () => {
  it('keeps two speakers where the windows hear two, and spans that overlap there', () => {
    const ls = local([
      ['111100', '001111'],
      ['110000', '111111'],
    ])
    const labels = Int32Array.of(0, 1, 0, 1)
    const counts = speakerCounts(ls)
    const spans = activitySpans(ls, reconstruct(ls, labels, 2, counts), 10, 0)
    const [a, b] = [spans.filter((s) => s.speaker === 0), spans.filter((s) => s.speaker === 1)]
    expect(a.some((x) => b.some((y) => x.start < y.end && y.start < x.end))).toBe(true)
    // Contiguous frames of one speaker are one span.
    expect(a).toHaveLength(1)
  })
})

describe('a count above the speakers heard', () => {
  it('gives the new speaker as little of the one heard as makes it heard for the minimum, from its last windows', () => {
    // One voice throughout 20 windows (63 frames of 0.1 s); asked for two speakers, at least 0.5 s each.
    const ls = local(Array.from({ length: 20 }, () => ['111111', '000000']))
    const labels = Int32Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? 0 : -1))
    const counts = speakerCounts(ls, 0)
    const split = splitToCount(ls, labels, 2, counts, 0.5)
    const heard = reconstruct(ls, split, 2, counts)
    const framesOf = (s: number) =>
      heard.active.slice(s * heard.frames, (s + 1) * heard.frames).reduce((a, b) => a + b)
    expect(framesOf(1)).toBeGreaterThanOrEqual(5)
    // Far less than the half a split in the middle would take, and all of it at the end.
    expect(framesOf(1)).toBeLessThan(15)
    expect(heard.active.slice(heard.frames, heard.frames + 40).every((x) => x === 0)).toBe(true)
    expect(framesOf(0) + framesOf(1)).toBe(ls.frames)
  })

  it('stops when nobody can be split', () => {
    const ls = local([['111111', '000000']])
    const split = splitToCount(ls, Int32Array.from([0, -1]), 3, speakerCounts(ls, 0), 0.5)
    expect(Math.max(...split)).toBe(0)
  })
})
