import { describe, expect, it } from 'vitest'
import type { RecognizedWord } from './recognizer.ts'
import { groupSegments } from './segments.ts'

const w = (text: string, start: number, end: number): RecognizedWord => ({ text, start, end, confidence: 1 })

describe('groupSegments', () => {
  it.each([
    { name: 'no words, no segment', words: [], expected: [] },
    { name: 'one word', words: [w('hello', 0.2, 0.6)], expected: [[0.2, 0.6, 'hello']] },
    {
      name: 'pauses under 0.5 s stay inside a segment',
      words: [w('a', 0, 0.3), w('b', 0.79, 1), w('c', 1.4, 2)],
      expected: [[0, 2, 'a b c']],
    },
    {
      name: 'a pause of 0.5 s or more splits',
      words: [w('a', 0, 0.3), w('b', 0.8, 1), w('c', 2.5, 3)],
      expected: [
        [0, 0.3, 'a'],
        [0.8, 1, 'b'],
        [2.5, 3, 'c'],
      ],
    },
    {
      name: 'a segment never runs past 15 s',
      words: Array.from({ length: 40 }, (_, i) => w(`w${i}`, i * 0.5, i * 0.5 + 0.4)),
      expected: [
        [0, 14.9, Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ')],
        [15, 19.9, Array.from({ length: 10 }, (_, i) => `w${i + 30}`).join(' ')],
      ],
    },
    {
      name: 'a single word longer than the maximum is its own segment',
      words: [w('a', 0, 1), w('long', 1.1, 17), w('b', 17.1, 18)],
      expected: [
        [0, 1, 'a'],
        [1.1, 17, 'long'],
        [17.1, 18, 'b'],
      ],
    },
  ])('$name', ({ words, expected }) => {
    const segments = groupSegments(words)
    expect(segments.map((s) => [s.start, s.end, s.text])).toEqual(expected)
    expect(segments.flatMap((s) => s.words)).toEqual(words)
  })

  it('takes other limits', () => {
    const words = [w('a', 0, 0.3), w('b', 0.5, 0.8), w('c', 0.9, 3)]
    const segments = groupSegments(words, { maxPauseSeconds: 0.15, maxSegmentSeconds: 2 })
    expect(segments.map((s) => s.text)).toEqual(['a', 'b', 'c'])
  })
})
