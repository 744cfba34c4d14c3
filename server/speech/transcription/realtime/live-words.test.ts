import { describe, expect, it } from 'vitest'
import type { RecognizedWord } from '../../../engine/recognition/index.ts'
import { confirmed, wordsAfter } from './live-words.ts'

const RATE = 16_000
const word = (text: string, start: number, end: number): RecognizedWord => ({
  text,
  start,
  end,
  confidence: 1,
})
const decoded = (...words: RecognizedWord[]) => ({ words, text: words.map((w) => w.text).join(' ') })

describe('wordsAfter', () => {
  it('moves words to the session clock and keeps those whose middle lies after the line', () => {
    // Audio from 10 s; words sent up to 11.0 s. "we" (10.2–10.5) was sent; "will" straddles the line, its middle
    // (10.95) before it, so it was sent too; "walk" straddles it with its middle after, so it is new.
    const result = decoded(
      word('we', 0.2, 0.5),
      word('will', 0.8, 1.1),
      word('walk', 0.9, 1.4),
      word('to', 1.5, 1.7),
    )
    const after = wordsAfter(result, 10 * RATE, 11 * RATE)
    expect(after.map((w) => w.text)).toEqual(['walk', 'to'])
    // A new word never starts before the line, so the item's words stay in time order.
    expect(after[0]?.start).toBeCloseTo(11, 6)
    expect(after[0]?.end).toBeCloseTo(11.4, 6)
    expect(after[1]?.start).toBeCloseTo(11.5, 6)
  })

  it('keeps every word when nothing was sent yet', () => {
    const after = wordsAfter(decoded(word('hello', 0.1, 0.4)), 2 * RATE, 2 * RATE)
    expect(after.map((w) => [w.text, w.start, w.end])).toEqual([['hello', 2.1, 2.4]])
  })
})

describe('confirmed', () => {
  const none = Number.NEGATIVE_INFINITY
  it('is the longest common beginning of two decodes, by text, with the latest times', () => {
    const previous = [word('the', 1, 1.2), word('whether', 1.2, 1.6)]
    const latest = [word('the', 1, 1.21), word('weather', 1.2, 1.7), word('is', 1.8, 2)]
    expect(confirmed(previous, latest, none)).toEqual([word('the', 1, 1.21)])
    expect(confirmed(latest, [...latest, word('sunny', 2.1, 2.5)], none)).toEqual(latest)
  })

  it('is nothing after a first decode, or when the first words differ, until words settle', () => {
    expect(confirmed([], [word('a', 0, 1)], none)).toEqual([])
    expect(confirmed([word('a', 0, 1)], [word('b', 0, 1), word('a', 1, 2)], none)).toEqual([])
    // Words ending before the settled line are sent even without agreement, in order, up to the first that does not.
    const latest = [word('b', 0, 1), word('a', 1, 2), word('c', 2, 3)]
    expect(confirmed([word('a', 0, 1)], latest, 2)).toEqual(latest.slice(0, 2))
    expect(confirmed([word('b', 0, 1)], latest, 1.5)).toEqual(latest.slice(0, 1))
  })
})
