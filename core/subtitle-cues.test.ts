import { describe, expect, it } from 'vitest'
import { expectCueLimits, prng, randomWords, readSrt, readVtt } from '../server/testing/subtitles.ts'
import {
  checkCues,
  finishCues,
  renderSrt,
  renderVtt,
  speakerPrefix,
  splitCues,
  subtitleTime,
  wordsOverSpan,
} from './subtitle-cues.ts'

const w = (text: string, start: number, end: number) => ({ text, start, end })
/** Words of `length` letters, `each` seconds apart. */
const even = (count: number, each = 0.3, letters = 5) =>
  Array.from({ length: count }, (_, i) =>
    w(`${String.fromCharCode(97 + (i % 26))}`.repeat(letters), i * each, i * each + each * 0.9),
  )

describe('splitCues', () => {
  it('keeps a short sequence in one cue on one line', () => {
    expect(splitCues([w('hello', 0.5, 0.8), w('world', 0.9, 1.2)])).toEqual([
      { start: 0.5, end: 1.2, lines: ['hello world'] },
    ])
  })

  it('breaks two lines evenly when one would be longer than 42 characters', () => {
    // 8 words of 5 letters: 47 characters.
    const [cue] = splitCues(even(8))
    expect(cue?.lines).toEqual(['aaaaa bbbbb ccccc ddddd', 'eeeee fffff ggggg hhhhh'])
  })

  it('starts a new cue after 7 s and after a pause of 1 s, at word boundaries', () => {
    const cues = splitCues(even(30, 0.5, 2))
    for (const c of cues) expect(c.end - c.start).toBeLessThanOrEqual(7)
    expect(cues.length).toBe(3)
    const paused = splitCues([w('one', 0, 0.3), w('two', 1.3, 1.6), w('three', 1.7, 2)])
    expect(paused.map((c) => c.lines.join(' '))).toEqual(['one', 'two three'])
  })

  it('prefers the longest pause, or a sentence end, in the second half of what would fit', () => {
    // 12 words of 7 letters fill more than two lines; a 0.6 s pause after word 7 is where the cue ends.
    const words = even(12, 0.4, 7).map((x, i) =>
      i >= 7 ? { ...x, start: x.start + 0.6, end: x.end + 0.6 } : x,
    )
    expect(splitCues(words)[0]?.lines.join(' ').split(' ')).toHaveLength(7)
    const sentence = even(12, 0.4, 7).map((x, i) => (i === 5 ? { ...x, text: `${x.text}.` } : x))
    expect(splitCues(sentence)[0]?.lines.join(' ').split(' ')).toHaveLength(6)
  })

  it('counts the speaker prefix in the first line and shortens long names', () => {
    const cues = splitCues(even(7), { prefix: speakerPrefix('Interviewer') })
    expect(cues[0]?.lines[0]?.startsWith('Interviewer: ')).toBe(true)
    for (const line of cues.flatMap((c) => c.lines)) expect(line.length).toBeLessThanOrEqual(42)
    expect(speakerPrefix('A very long speaker name indeed')).toBe('A very long speaker…: ')
    expect(speakerPrefix('  ')).toBe('')
  })

  it('gives a word longer than a line its own line and a word longer than 7 s a 7 s cue', () => {
    const long = 'x'.repeat(50)
    const cues = splitCues([w('a', 0, 0.2), w(long, 0.3, 1), w('b', 1.1, 1.3), w('slow', 2, 12)])
    expect(cues.flatMap((c) => c.lines)).toEqual(['a', long, 'b', 'slow'])
    expect(cues.at(-1)).toMatchObject({ start: 2, end: 9 })
  })

  it('makes times non-decreasing and leaves out empty words', () => {
    const cues = splitCues([w('b', 2, 2.5), w(' ', 2.5, 2.6), w('a', 1, 1.2), w('c', Number.NaN, 3)])
    expect(cues.map((c) => c.lines.join(' '))).toEqual(['b a c'])
    expect(cues[0]).toMatchObject({ start: 2, end: 3 })
  })

  it('keeps every limit on random word sequences, losing and reordering nothing (fixed seed)', () => {
    const random = prng(20)
    for (let run = 0; run < 150; run++) {
      const words = randomWords(random, 1 + Math.floor(random() * 120), random() * 100)
      const prefix = run % 3 === 0 ? speakerPrefix(run % 2 ? 'Anna' : 'Dr Someone With A Long Name') : ''
      const cues = finishCues(splitCues(words, { prefix }))
      const expected = words.map((x) => x.text)
      const prefixes = prefix ? [prefix] : []
      expect(expectCueLimits(readSrt(renderSrt(cues)), { prefixes })).toEqual(expected)
      expect(expectCueLimits(readVtt(renderVtt(cues)), { prefixes })).toEqual(expected)
      // Cues of one sequence never overlap, even after short ones are held longer, and keep the gap; a cue still
      // too short or too fast to read is one the next cue left no more room for.
      for (let i = 1; i < cues.length; i++) {
        expect(cues[i]?.start).toBeGreaterThanOrEqual(cues[i - 1]?.end as number)
      }
      checkCues(cues).forEach((problems, i) => {
        const cue = cues[i] as (typeof cues)[number]
        const next = cues[i + 1]
        for (const p of problems) {
          expect(['short', 'speed', 'gap']).toContain(p.rule)
          if (p.rule === 'gap') expect(next && next.start - (cues[i - 1]?.end ?? -1)).toBeDefined()
          else {
            const held = next ? Math.min(next.start - 0.08, cue.start + 7) : cue.start + 7
            expect(cue.end).toBeCloseTo(Math.max(held, cue.end), 6)
          }
        }
        // The gap is broken only where the next cue starts before this cue's words could end earlier.
        if (problems.some((p) => p.rule === 'gap')) expect((next?.start ?? 0) - cue.start).toBeLessThan(0.081)
      })
    }
  })
})

describe('finishCues', () => {
  it('holds a short cue up to a second, never into the next cue', () => {
    const cues = finishCues([
      { start: 5, end: 5.2, lines: ['c'] },
      { start: 0, end: 0.3, lines: ['a'] },
      { start: 0.6, end: 0.9, lines: ['b'] },
    ])
    expect(cues.map((c) => [c.start, c.end])).toEqual([
      [0, 0.52],
      [0.6, 1.6],
      [5, 6],
    ])
  })

  it('holds a cue until it can be read at 17 characters per second, where the next cue allows', () => {
    const lines = ['x'.repeat(25), 'x'.repeat(25)] // 51 characters with the line break: 3 s to read.
    const [alone, crowded] = [
      finishCues([{ start: 0, end: 1.5, lines }]),
      finishCues([
        { start: 0, end: 1.5, lines },
        { start: 2, end: 3, lines: ['next'] },
      ]),
    ]
    expect(alone[0]?.end).toBeCloseTo(3, 6)
    expect(crowded[0]?.end).toBeCloseTo(1.92, 6)
  })

  it('ends a cue that runs into the gap before the next a little earlier, and leaves two people at once', () => {
    const close = finishCues([
      { start: 0, end: 1.97, lines: ['a'] },
      { start: 2, end: 3, lines: ['b'] },
    ])
    expect(close[0]?.end).toBeCloseTo(1.92, 6)
    const overlapping = finishCues([
      { start: 0, end: 2.5, lines: ['a'], voice: 'Ann' },
      { start: 2, end: 3, lines: ['b'], voice: 'Bo' },
    ])
    expect(overlapping[0]?.end).toBe(2.5)
    expect(checkCues(overlapping)[0]).toEqual([{ rule: 'gap', value: -0.5, limit: 0.08 }])
  })
})

describe('checkCues', () => {
  it('names each rule a cue breaks, with its value and the limit', () => {
    const long = 'word '.repeat(10).trim() // 49 characters
    const problems = checkCues([
      { start: 0, end: 0.5, lines: ['a', 'b', 'c'] },
      { start: 0.55, end: 9, lines: [long] },
      { start: 10, end: 11, lines: ['this line has far too many characters', 'for one second'] },
      { start: 12, end: 13.5, lines: ['fine'] },
      { start: 14, end: 15, lines: ['x'.repeat(50)] },
    ])
    expect(problems[0]).toEqual([
      { rule: 'lines', value: 3, limit: 2 },
      { rule: 'short', value: 0.5, limit: 1 },
      expect.objectContaining({ rule: 'gap', limit: 0.08 }),
    ])
    expect(problems[1]).toEqual([
      { rule: 'line-length', value: 49, limit: 42, line: 1 },
      { rule: 'long', value: 8.45, limit: 7 },
    ])
    expect(problems[2]).toEqual([{ rule: 'speed', value: 52, limit: 17 }])
    expect(problems[3]).toEqual([])
    // One word longer than a line cannot be broken; it is not flagged for its length.
    expect(problems[4]?.map((p) => p.rule)).toEqual(['speed'])
  })
})

describe('line breaks', () => {
  const timed = (text: string) => wordsOverSpan(text, 0, 4)
  const lines = (text: string) => splitCues(timed(text))[0]?.lines

  it('break after a sentence or a comma rather than where the lines are most even', () => {
    expect(lines('We went down to the old market, and then we bought bread')).toEqual([
      'We went down to the old market,',
      'and then we bought bread',
    ])
    expect(lines('I saw it. Then the whole room went quiet for a while')).toEqual([
      'I saw it.',
      'Then the whole room went quiet for a while',
    ])
  })

  it('never leave an article or a preposition at the end of a line when another break fits', () => {
    for (const [first] of [lines('she walked slowly all the way to the station in the rain')] as string[][]) {
      expect(first).not.toMatch(/\b(the|to|in|a|of)$/)
    }
    expect(lines('she walked slowly all the way to the station in the rain')).toEqual([
      'she walked slowly all the way',
      'to the station in the rain',
    ])
  })
})

describe('rendering', () => {
  it('writes SRT and WebVTT with voices escaped', () => {
    const cues = [{ start: 1, end: 2.5, lines: ['a < b &', 'c'], voice: 'A<b>' }]
    expect(renderSrt(cues)).toBe('1\n00:00:01,000 --> 00:00:02,500\na < b &\nc\n')
    expect(renderVtt(cues)).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\n<v A&lt;b&gt;>a &lt; b &amp;\nc</v>\n',
    )
    expect(renderVtt([])).toBe('WEBVTT\n')
    expect(renderSrt([])).toBe('')
    expect(subtitleTime(3723.5, ',')).toBe('01:02:03,500')
  })

  it('spreads words over a span by their length', () => {
    expect(wordsOverSpan('ab c', 0, 5)).toEqual([w('ab', 0, 2.5), w('c', 3.75, 5)])
  })
})
