import { describe, expect, it } from 'vitest'
import { itemBounds, speakerGroups } from './turn-splitting.ts'

/** How one turn's tracker segments become items: a change of speaker splits the turn (contract 6.4). */
const seg = (speaker: number, start: number, end: number) => ({ speaker, start, end })
const shape = (groups: ReturnType<typeof speakerGroups>) => groups.map((g) => [g.speaker, g.start, g.end])

describe('speakerGroups', () => {
  it('keeps a one-speaker turn whole, covering the turn when the tracker gave no segments', () => {
    expect(shape(speakerGroups({ speaker: 0, segments: [seg(0, 0, 3)] }, 3))).toEqual([[0, 0, 3]])
    expect(shape(speakerGroups({ speaker: 2, segments: [] }, 4))).toEqual([[2, 0, 4]])
    expect(speakerGroups({ speaker: null, segments: [] }, 4)).toEqual([])
  })

  it('splits at a change when both speakers hold the floor for at least a second', () => {
    const groups = speakerGroups({ speaker: 1, segments: [seg(0, 0, 2.6), seg(1, 2.6, 5.9)] }, 5.9)
    expect(shape(groups)).toEqual([
      [0, 0, 2.6],
      [1, 2.6, 5.9],
    ])
    expect(groups[1]?.segments).toEqual([seg(1, 2.6, 5.9)])
  })

  it('keeps a short interjection inside the turn around it, listed in its segments', () => {
    const groups = speakerGroups({ speaker: 0, segments: [seg(0, 0, 3), seg(1, 3, 3.6), seg(0, 3.6, 6)] }, 6)
    expect(shape(groups)).toEqual([[0, 0, 6]])
    expect(groups[0]?.segments).toHaveLength(3)
  })

  it('gives a short opening stretch to the first speaker who holds the floor', () => {
    expect(shape(speakerGroups({ speaker: 0, segments: [seg(1, 0, 0.5), seg(0, 0.5, 4)] }, 4))).toEqual([
      [0, 0, 4],
    ])
  })

  it('splits three ways and joins groups whose majority speaker is the same', () => {
    expect(
      shape(
        speakerGroups(
          { speaker: 0, segments: [seg(0, 0, 2), seg(1, 2, 4), seg(0, 4, 4.5), seg(2, 4.5, 7)] },
          7,
        ),
      ),
    ).toEqual([
      [0, 0, 2],
      [1, 2, 4.5],
      [2, 4.5, 7],
    ])
  })
})

describe('itemBounds', () => {
  const group = (speaker: number, start: number, end: number) => ({
    speaker,
    start,
    end,
    segments: [seg(speaker, start, end)],
  })

  it('cuts the turn at each group, the first from 0 and the last to its end', () => {
    expect(itemBounds([group(0, 0.2, 2), group(1, 2, 3.9)], 40, 0, 10).map((b) => [b.from, b.to])).toEqual([
      [0, 20],
      [20, 40],
    ])
  })

  it('keeps the early-recognized start in the first item, dropping a group wholly inside it', () => {
    const bounds = itemBounds([group(0, 0, 1), group(1, 1, 2), group(0, 2, 4)], 40, 25, 10)
    expect(bounds.map((b) => [b.group.speaker, b.from, b.to])).toEqual([
      [0, 0, 25],
      [0, 25, 40],
    ])
  })
})
