import { describe, expect, it } from 'vitest'
import type { StoredResult } from '../../../schema/index.ts'
import { entryWords, resultWords } from './cue-words.ts'

const w = (text: string, start: number, end: number) => ({ text, start, end })

describe('resultWords', () => {
  it('reads verbose_json words in time order and skips malformed ones', () => {
    const result = {
      text: '',
      warnings: [],
      words: [
        { word: 'b', start: 2, end: 2.5 },
        { word: 'a', start: 1, end: 1.5 },
        { word: 'x', start: 'soon', end: 3 },
        null,
        { word: 'c', start: 3, end: Number.NaN },
      ],
    } as StoredResult
    expect(resultWords(result)).toEqual([w('a', 1, 1.5), w('b', 2, 2.5)])
    expect(resultWords({ text: 'a', warnings: [] })).toEqual([])
  })
})

describe('entryWords', () => {
  const words = [
    w('the', 0, 0.2),
    w('cat', 0.3, 0.6),
    w('sat', 0.7, 1),
    w('on', 5, 5.2),
    w('the', 5.3, 5.4),
    w('mat', 5.5, 6),
    w('today', 6.1, 6.6),
  ]

  it("takes each token's time from the recognized word it matches, in order, near the entry", () => {
    // A turn holding the second segment only; its span is the diarizer's, not the words'.
    expect(entryWords('on the mat today', 4.8, 6.2, words)).toEqual(words.slice(3))
  })

  it('does not jump to a lone common word elsewhere', () => {
    // "the" alone matches nothing trusted: three tokens must agree before a jump.
    const out = entryWords('the end', 10, 11, words)
    expect(out.map((x) => x.text)).toEqual(['the', 'end'])
    expect(out[0]?.start).toBe(10)
    expect(out[1]?.end).toBe(11)
  })

  it('spreads tokens it cannot find between their matched neighbours', () => {
    const out = entryWords('on the big mat today', 4.8, 6.6, words)
    expect(out.map((x) => x.text)).toEqual(['on', 'the', 'big', 'mat', 'today'])
    expect(out[2]?.start).toBeGreaterThanOrEqual(5.4)
    expect(out[2]?.end).toBeLessThanOrEqual(5.5)
    expect(out[3]).toEqual(w('mat', 5.5, 6))
  })

  it('matches across case and punctuation, keeping the text as written', () => {
    expect(entryWords('The cat, sat.', 0, 1, words)).toEqual([
      w('The', 0, 0.2),
      w('cat,', 0.3, 0.6),
      w('sat.', 0.7, 1),
    ])
  })

  it('spreads the text over the entry when there are no words', () => {
    expect(entryWords('ab c', 0, 5, [])).toEqual([w('ab', 0, 2.5), w('c', 3.75, 5)])
    expect(entryWords('  ', 0, 5, words)).toEqual([])
  })
})
