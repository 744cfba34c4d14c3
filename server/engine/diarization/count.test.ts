import { describe, expect, it } from 'vitest'
import { COUNT_DEFAULTS, chooseCount } from './count.ts'
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

  it('counts, as shipped, a small voice that sounds different but not a split of one voice', () => {
    // One window in ten (10 %) of a second voice: a sliver for a rule asking 15 %, a person for the shipped one.
    const small = setup((i) => (i < 9 ? A : B), [() => 0, (i) => (i < 9 ? 0 : 1)])
    const shipped = { ...COUNT_DEFAULTS, minSpeakers: 1 }
    expect(chooseCount(small.partitions, small.windows, RULE)).toBe(1)
    expect(chooseCount(small.partitions, small.windows, shipped)).toBe(2)
    const alike = setup((i) => (i % 2 ? A : AB), [() => 0, (i) => (i < 9 ? 0 : 1)])
    expect(chooseCount(alike.partitions, alike.windows, shipped)).toBe(1)
  })

  it('stays within the least and largest counts asked for', () => {
    const { windows, partitions } = setup((i) => (i < 6 ? A : B), [() => 0, (i) => (i < 6 ? 0 : 1)])
    expect(chooseCount(partitions, windows, { ...RULE, maxSpeakers: 1 })).toBe(1)
    const one = setup(() => A, [() => 0, (i) => (i < 5 ? 0 : 1)])
    expect(chooseCount(one.partitions, one.windows, { ...RULE, minSpeakers: 2 })).toBe(2)
  })
})
