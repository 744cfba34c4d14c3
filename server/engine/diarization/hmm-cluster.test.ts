import { describe, expect, it } from 'vitest'
import { whiteNoise } from '../markup/dsp.ts'
import { hmmClusterOffThread, openClusterSession } from './cluster-thread.ts'
import type { FrameMatrix } from './gmm.ts'
import {
  adjustedRandIndex,
  consensusLadder,
  HMM_CLUSTER_DEFAULTS,
  hmmCluster,
  hmmClusterLadder,
  minimumDurationViterbi,
} from './hmm-cluster.ts'

const DIMENSION = 20

/**
 * Frames of talkers taking turns (`turns`: [speaker, seconds] at 100 frames a second): each frame is one of six
 * "phones" shared by everyone, moved by the talker's own offset, plus noise — content varies faster than the voice.
 */
function conversation(
  speakers: number,
  turns: [number, number][],
  seed = 5,
): { frames: FrameMatrix; truth: number[] } {
  const noise = whiteNoise(seed)
  const phones = Array.from({ length: 6 }, () => Float64Array.from({ length: DIMENSION }, () => 3 * noise()))
  const voices = Array.from({ length: speakers }, () =>
    Float64Array.from({ length: DIMENSION }, () => 1.5 * noise()),
  )
  const data: number[] = []
  const truth: number[] = []
  let phone = 0
  for (const [speaker, seconds] of turns) {
    for (let f = 0; f < seconds * 100; f++) {
      if (f % 8 === 0) phone = Math.floor(((noise() + 1) / 2) * phones.length) % phones.length
      for (let j = 0; j < DIMENSION; j++)
        data.push(
          ((phones[phone] as Float64Array)[j] as number) +
            ((voices[speaker] as Float64Array)[j] as number) +
            noise(),
        )
      truth.push(speaker)
    }
  }
  return { frames: { rows: truth.length, dimension: DIMENSION, data: Float64Array.from(data) }, truth }
}

/** Share of rows whose label matches the truth under the best one-to-one renaming (small counts: all tried). */
function accuracy(labels: Int32Array, truth: number[], speakers: number): number {
  const permutations = (items: number[]): number[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((x, i) => permutations(items.filter((_, k) => k !== i)).map((p) => [x, ...p]))
  let best = 0
  for (const map of permutations(Array.from({ length: speakers }, (_, i) => i))) {
    let hits = 0
    labels.forEach((label, i) => {
      if (map[label] === truth[i]) hits++
    })
    best = Math.max(best, hits / truth.length)
  }
  return best
}

describe('minimumDurationViterbi', () => {
  /** Two states; state 1 scores `gain` over state 0 on the listed rows, and `-loss` elsewhere. */
  function scores(n: number, rows: number[], gain: number, loss: number): Float64Array {
    const out = new Float64Array(n * 2)
    for (let i = 0; i < n; i++) out[i * 2 + 1] = rows.includes(i) ? gain : -loss
    return out
  }

  it('takes a short excursion only when the minimum stay allows it', () => {
    const blip = scores(20, [8, 9], 2, 3)
    expect(Array.from(minimumDurationViterbi(blip, 20, 2, 1)).slice(7, 11)).toEqual([0, 1, 1, 0])
    expect(Array.from(minimumDurationViterbi(blip, 20, 2, 5))).toEqual(new Array(20).fill(0))
  })

  it('changes speaker where a long run begins', () => {
    const run = scores(
      30,
      Array.from({ length: 15 }, (_, i) => 10 + i),
      1,
      1,
    )
    const path = Array.from(minimumDurationViterbi(run, 30, 2, 5))
    expect(path).toEqual([...new Array(10).fill(0), ...new Array(15).fill(1), ...new Array(5).fill(0)])
  })

  it('may end inside a minimum stay', () => {
    const tail = scores(20, [17, 18, 19], 10, 1)
    expect(Array.from(minimumDurationViterbi(tail, 20, 2, 5)).slice(15)).toEqual([0, 0, 1, 1, 1])
  })
})

describe('adjustedRandIndex', () => {
  it('is 1 for the same partition under other names, and about 0 for an unrelated one', () => {
    expect(adjustedRandIndex(Int32Array.of(0, 0, 1, 1, 2, 2), Int32Array.of(2, 2, 0, 0, 1, 1))).toBeCloseTo(
      1,
      12,
    )
    const a = Int32Array.from({ length: 400 }, (_, i) => i % 2)
    const b = Int32Array.from({ length: 400 }, (_, i) => Math.floor(i / 2) % 2)
    expect(Math.abs(adjustedRandIndex(a, b))).toBeLessThan(0.05)
  })
})

describe('hmmCluster', () => {
  const turns: [number, number][] = [
    [0, 4],
    [1, 3],
    [0, 5],
    [1, 4],
    [0, 3],
    [1, 5],
  ]

  it('splits two talkers taking turns, numbered by first appearance', () => {
    const { frames, truth } = conversation(2, turns)
    const labels = hmmCluster(frames, 2)
    expect(new Set(labels)).toEqual(new Set([0, 1]))
    expect(labels[0]).toBe(0)
    expect(accuracy(labels, truth, 2)).toBeGreaterThan(0.95)
  })

  it('finds three talkers when asked for three', () => {
    const { frames, truth } = conversation(3, [
      [0, 4],
      [1, 3],
      [2, 4],
      [0, 3],
      [2, 3],
      [1, 4],
    ])
    const labels = hmmCluster(frames, 3)
    expect(new Set(labels).size).toBe(3)
    expect(accuracy(labels, truth, 3)).toBeGreaterThan(0.9)
  })

  it('gives the partition for every count from one pass, the true count among them', () => {
    const { frames, truth } = conversation(3, [
      [0, 4],
      [1, 3],
      [2, 4],
      [0, 3],
      [2, 3],
      [1, 4],
    ])
    const ladder = hmmClusterLadder(frames, 4)
    expect(ladder.map((labels) => new Set(labels).size)).toEqual([1, 2, 3, 4])
    expect(accuracy(ladder[2] as Int32Array, truth, 3)).toBeGreaterThan(0.9)
  })

  it('gives one speaker when asked for one, and no more speakers than minimum stays fit', () => {
    const { frames } = conversation(2, turns)
    expect(new Set(hmmCluster(frames, 1))).toEqual(new Set([0]))
    const short = conversation(2, [
      [0, 1],
      [1, 1],
    ]).frames
    expect(new Set(hmmCluster(short, 3)).size).toBe(1)
  })
})

describe('hmmClusterOffThread', () => {
  it('gives the same labels on a worker thread as in place', async () => {
    const { frames } = conversation(2, turns())
    const inPlace = hmmCluster(frames, 2)
    const copy = { ...frames, data: Float64Array.from(frames.data) }
    expect(Array.from((await hmmClusterOffThread(copy, 2, HMM_CLUSTER_DEFAULTS))[1] ?? [])).toEqual(
      Array.from(inPlace),
    )
  }, 60_000)

  it('runs in steps on one worker as all at once', async () => {
    const { frames } = conversation(2, turns())
    const together = hmmClusterLadder(frames, 3)
    const session = openClusterSession(
      { ...frames, data: Float64Array.from(frames.data) },
      3,
      HMM_CLUSTER_DEFAULTS,
    )
    try {
      const first = await session.runs([0])
      const rest = await session.runs([1, 2])
      const stepped = consensusLadder(frames.rows, 3, [...first, ...rest])
      expect(stepped.map((p) => Array.from(p))).toEqual(together.map((p) => Array.from(p)))
    } finally {
      session.close()
    }
    await expect(session.runs([0])).rejects.toThrow('closed')
  }, 60_000)

  it('rejects with the reason when aborted', async () => {
    const { frames } = conversation(2, turns())
    const controller = new AbortController()
    const pending = hmmClusterOffThread(frames, 2, HMM_CLUSTER_DEFAULTS, controller.signal)
    controller.abort(new Error('stop'))
    await expect(pending).rejects.toThrow('stop')
  }, 60_000)

  function turns(): [number, number][] {
    return [
      [0, 4],
      [1, 4],
      [0, 4],
      [1, 4],
    ]
  }
})
