import { describe, expect, it } from 'vitest'
import { commonWords, realign, spread, type TimedWord } from './word-alignment.ts'

const w = (text: string, start: number, end: number, confidence?: number): TimedWord =>
  confidence === undefined ? { text, start, end } : { text, start, end, confidence }

/** "the cat sat on the mat", one word a second with a 0.2 s pause after each. */
const machine = ['the', 'cat', 'sat', 'on', 'the', 'mat'].map((t, i) => w(t, i, i + 0.8, 0.9))

describe('realign', () => {
  it('keeps every time and confidence when only case and punctuation change', () => {
    const out = realign(machine, 'The cat sat on the mat.', 0, 6)
    expect(out.map((x) => [x.start, x.end, x.confidence])).toEqual(machine.map((x) => [x.start, x.end, 0.9]))
    expect(out.map((x) => x.edited)).toEqual([true, false, false, false, false, true])
  })

  it('times a replaced word over the word it replaced, the others unchanged', () => {
    const out = realign(machine, 'the dog sat on the mat', 0, 6)
    expect(out[1]).toMatchObject({ text: 'dog', start: 1, edited: true })
    expect(out[1]?.end).toBeCloseTo(1.8)
    expect(out[1]?.confidence).toBeUndefined()
    expect(out.filter((x) => !x.edited)).toEqual(
      machine.filter((_x, i) => i !== 1).map((x) => ({ ...x, edited: false })),
    )
  })

  it('spreads inserted words over the pause between their neighbours, by their length', () => {
    const out = realign(machine, 'the cat sat down on the mat', 0, 6)
    expect(out[3]).toMatchObject({ text: 'down', start: 2.8, edited: true })
    expect(out[3]?.end).toBeCloseTo(3)
    // Two words replacing one share its time in proportion to their characters.
    const two = realign(machine, 'the cat sat on a big mat', 0, 6)
    expect(two.slice(4, 6).map((x) => x.text)).toEqual(['a', 'big'])
    expect(two[4]?.start).toBe(4)
    expect(two[5]?.end).toBeCloseTo(4.8)
    expect(two[5]?.start).toBeCloseTo(4 + (0.8 * 2) / 5)
  })

  it('drops deleted words and times words before the first and after the last within the turn', () => {
    expect(realign(machine, 'cat sat', 0, 6).map((x) => x.start)).toEqual([1, 2])
    const edges = realign(machine.slice(1, 3), 'well cat sat indeed', 0.5, 3.5)
    expect(edges[0]).toMatchObject({ text: 'well', start: 0.5, edited: true })
    expect(edges[0]?.end).toBeCloseTo(1)
    expect(edges[3]).toMatchObject({ text: 'indeed', start: 2.8, end: 3.5 })
  })

  it("gives new words the forced alignment's times, kept between the neighbours that keep theirs", () => {
    // "down" said late in the pause after "sat" (2.8–3.0): forced alignment heard it at 2.85–2.95.
    const spans = [
      [0, 0.8],
      [1, 1.8],
      [2, 2.8],
      [2.85, 2.95],
      [3, 3.8],
      [4, 4.8],
      [5, 5.8],
    ] as const
    const out = realign(machine, 'the cat sat down on the mat', 0, 6, spans)
    expect(out[3]).toMatchObject({ text: 'down', start: 2.85, end: 2.95, edited: true })
    // Unchanged words keep the recognizer's times even where the alignment disagrees.
    const shifted = spans.map(([a, b]) => [a + 0.1, b + 0.1] as const)
    const kept = realign(machine, 'the cat sat down on the mat', 0, 6, shifted)
    expect(kept.filter((x) => !x.edited).map((x) => x.start)).toEqual([0, 1, 2, 3, 4, 5])
    // A forced span over a neighbour is held to the gap between them.
    const over = realign(
      machine,
      'the cat sat down on the mat',
      0,
      6,
      spans.map((x, i) => (i === 3 ? [2.5, 3.5] : x)),
    )
    expect(out.length).toBe(7)
    expect([over[3]?.start, over[3]?.end]).toEqual([2.8, 3])
    // Spans that do not match the text's tokens are not used.
    expect(realign(machine, 'the cat sat down on the mat', 0, 6, spans.slice(1))[3]?.start).toBe(2.8)
  })

  it('gives every word a time inside the turn even with no recognized words', () => {
    const out = realign([], 'one two three', 10, 13)
    expect(out[0]?.start).toBe(10)
    expect(out[2]?.end).toBeCloseTo(13)
  })
})

describe('helpers', () => {
  it('pairs a longest common subsequence, never empty keys', () => {
    expect(commonWords(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd'])).toEqual([
      [0, 0],
      [2, 2],
      [3, 3],
    ])
    expect(commonWords(['', 'a'], ['', 'a'])).toEqual([[1, 1]])
  })

  it('spreads by characters', () => {
    expect(spread(['ab', 'c'], 0, 4).map((x) => [x.start, x.end])).toEqual([
      [0, 2],
      [3, 4],
    ])
  })
})
