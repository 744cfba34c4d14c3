import { describe, expect, it } from 'vitest'
import { chooseCount, clearlyOne } from './count.ts'
import type { Window } from './windows.ts'

/** Ten 1 s windows (100 frames each) whose embeddings are `voice(i)`; frames labelled by `label(i)` per count. */
function setup(voice: (i: number) => number[], labels: ((i: number) => number)[]) {
  const windows: Window[] = Array.from({ length: 10 }, (_, i) => ({
    from: i * 100,
    to: (i + 1) * 100,
    embedding: Float32Array.from(voice(i)),
    voicedFrames: 50,
  }))
  const partitions = labels.map((label) =>
    Int32Array.from({ length: 1000 }, (_, f) => label(Math.floor(f / 100))),
  )
  return { windows, partitions }
}

const RULE = { minShare: 0.15, sameVoice: 0.6, maxSpeakers: 3, minSpeakers: 1 }
const A = [1, 0, 0, 0]
const B = [0, 1, 0, 0]
const AB = [1, 1, 0, 0.2]

describe('chooseCount', () => {
  it('takes a second speaker who sounds different and holds a fair share', () => {
    const { windows, partitions } = setup(
      (i) => (i < 6 ? A : B).map((x, d) => x + 0.01 * d * i),
      [() => 0, (i) => (i < 6 ? 0 : 1), (i) => (i < 3 ? 0 : i < 6 ? 2 : 1)],
    )
    // The third "speaker" is half of the first voice: alike as whole voices.
    expect(chooseCount(partitions, windows, RULE)).toBe(2)
  })

  it('keeps one speaker when the second is a sliver or sounds the same', () => {
    const sliver = setup((i) => (i < 9 ? A : B), [() => 0, (i) => (i < 9 ? 0 : 1)])
    expect(chooseCount(sliver.partitions, sliver.windows, RULE)).toBe(1)
    const alike = setup((i) => (i % 2 ? A : AB), [() => 0, (i) => (i < 5 ? 0 : 1)])
    expect(chooseCount(alike.partitions, alike.windows, RULE)).toBe(1)
  })

  it('stays within the least and largest counts asked for', () => {
    const { windows, partitions } = setup((i) => (i < 6 ? A : B), [() => 0, (i) => (i < 6 ? 0 : 1)])
    expect(chooseCount(partitions, windows, { ...RULE, maxSpeakers: 1 })).toBe(1)
    const one = setup(() => A, [() => 0, (i) => (i < 5 ? 0 : 1)])
    expect(chooseCount(one.partitions, one.windows, { ...RULE, minSpeakers: 2 })).toBe(2)
  })
})

describe('clearlyOne', () => {
  it('holds only when the two-speaker split fails the count rule by a margin', () => {
    // One window with 20 voiced frames against nine with 50 (4 %), under two thirds of the 15 % share: clearly one.
    const sliver = setup((i) => (i < 9 ? A : B), [() => 0, (i) => (i < 9 ? 0 : 1)])
    ;(sliver.windows[9] as Window).voicedFrames = 20
    expect(clearlyOne(sliver.partitions[1] as Int32Array, sliver.windows, RULE)).toBe(true)
    // 2 of 10 (20 %) of a different voice: the rule would count two, so no early stop.
    const two = setup((i) => (i < 8 ? A : B), [() => 0, (i) => (i < 8 ? 0 : 1)])
    expect(clearlyOne(two.partitions[1] as Int32Array, two.windows, RULE)).toBe(false)
    // The same voice on both sides (cosine 1, over 0.6 + 0.1): clearly one.
    const same = setup(() => A, [() => 0, (i) => (i < 5 ? 0 : 1)])
    expect(clearlyOne(same.partitions[1] as Int32Array, same.windows, RULE)).toBe(true)
    // Alike, but only 0.65 (between 0.6 and 0.7): one by the rule, yet not clearly.
    const near = [0.65, Math.sqrt(1 - 0.65 ** 2), 0, 0]
    const close = setup((i) => (i < 5 ? A : near), [() => 0, (i) => (i < 5 ? 0 : 1)])
    expect(chooseCount(close.partitions, close.windows, RULE)).toBe(1)
    expect(clearlyOne(close.partitions[1] as Int32Array, close.windows, RULE)).toBe(false)
  })
})
