import { describe, expect, it } from 'vitest'
import type { StoredResult } from '../../../schema/index.ts'
import { attributeSpans, clock, type Entry, entriesOf, TimeIndex } from './turns.ts'

const entry = (
  index: number,
  speaker: string | null,
  start: number | null,
  end: number | null,
  text = `t${index}`,
) => ({ index, speaker, start, end, text }) satisfies Entry

const base: StoredResult = { text: 'hello there. general kenobi', warnings: [] }

describe('entriesOf', () => {
  it.each([
    {
      name: 'turns when the service sent them, the trailing null entry kept',
      result: {
        ...base,
        segments: [{ id: 0, start: 0, end: 1, text: 'hello there.' }],
        diarization: {
          status: 'completed',
          speakers: ['speaker_0'],
          segments: [{ id: 0, start: 0, end: 1, speaker: 'speaker_0' }],
          turns: [
            { speaker: 'speaker_0', start: 0, end: 1, text: 'hello there.' },
            { speaker: null, start: null, end: null, text: 'general kenobi' },
          ],
        },
      },
      source: 'turns',
      entries: [entry(0, 'speaker_0', 0, 1, 'hello there.'), entry(1, null, null, null, 'general kenobi')],
    },
    {
      name: 'segments without speakers when turns is absent (text unavailable)',
      result: {
        ...base,
        segments: [
          { id: 0, start: 0, end: 1, text: ' hello there.' },
          { id: 1, start: 1, end: 2, text: ' general kenobi' },
        ],
        diarization: { status: 'completed', speakers: ['speaker_0'], segments: [] },
      },
      source: 'segments',
      entries: [entry(0, null, 0, 1, 'hello there.'), entry(1, null, 1, 2, 'general kenobi')],
    },
    {
      name: 'segments when diarization failed',
      result: {
        ...base,
        segments: [{ id: 0, start: 0.5, end: 2, text: 'hello' }],
        diarization: { status: 'failed', speakers: [], segments: [] },
      },
      source: 'segments',
      entries: [entry(0, null, 0.5, 2, 'hello')],
    },
    {
      name: 'the whole text, untimed, with neither',
      result: base,
      source: 'text',
      entries: [entry(0, null, null, null, 'hello there. general kenobi')],
    },
    { name: 'nothing for silence', result: { text: ' ', warnings: [] }, source: 'none', entries: [] },
    {
      name: 'an empty turn list stays turns (silence with diarization)',
      result: {
        ...base,
        text: '',
        diarization: { status: 'completed', speakers: [], segments: [], turns: [] },
      },
      source: 'turns',
      entries: [],
    },
  ] satisfies Array<{ name: string; result: StoredResult; source: string; entries: Entry[] }>)(
    '$name',
    ({ result, source, entries }) => {
      expect(entriesOf(result)).toEqual({ source, entries })
    },
  )
})

describe('TimeIndex', () => {
  const entries = [
    entry(0, 'a', 0, 2),
    entry(1, 'b', 2, 5),
    entry(2, 'a', 6, 8), // gap 5–6
    entry(3, null, null, null),
  ]
  const index = new TimeIndex(entries)

  it.each([
    [0, 0],
    [1.99, 0],
    [2, 1],
    [4.9, 1],
    [5.5, null],
    [6, 2],
    [8, null],
    [-1, null],
  ])('at(%s) is %s', (t, expected) => {
    expect(index.at(t)).toBe(expected)
  })

  it('ignores untimed entries', () => {
    expect(index.size).toBe(3)
  })

  it.each([
    [0, 1],
    [1.995, 2], // within 10 ms of a start counts as there (a seek lands a hair early)
    [2, 2],
    [5.5, 2],
    [6, null],
  ])('next(%s) is %s', (t, expected) => {
    expect(index.next(t)).toBe(expected)
  })

  it.each([
    [0.5, 0], // at the first entry: stays there
    [2.5, 0], // just into entry 1: back to entry 0
    [4, 1], // well into entry 1: its own start
    [5.5, 1], // in the gap after entry 1, more than 1 s past its start
    [6.2, 1],
    [-1, null],
  ])('previous(%s) is %s', (t, expected) => {
    expect(index.previous(t)).toBe(expected)
  })

  it('finds an earlier long entry still running under a later short one', () => {
    const overlapping = new TimeIndex([entry(0, 'a', 0, 10), entry(1, 'b', 2, 3)])
    expect(overlapping.at(2.5)).toBe(1)
    expect(overlapping.at(4)).toBe(0)
  })

  it('stays fast on 5,000 entries', () => {
    const many = Array.from({ length: 5000 }, (_, i) => entry(i, `s${i % 3}`, i * 1.44, i * 1.44 + 1.3))
    const big = new TimeIndex(many)
    expect(big.at(1.44 * 4321 + 0.5)).toBe(4321)
    expect(big.at(1.44 * 4321 + 1.35)).toBeNull()
  })
})

describe('attributeSpans (a span straddling a turn boundary goes wholly to the side it overlaps more)', () => {
  const turns = [entry(0, 'a', 0, 4), entry(1, 'b', 4, 10), entry(2, null, null, null)]
  it.each([
    { span: { start: 1, end: 3 }, owner: 0, why: 'inside the first turn' },
    { span: { start: 3, end: 6 }, owner: 1, why: 'straddles, more in the second (1 s vs 2 s)' },
    { span: { start: 2, end: 5 }, owner: 0, why: 'straddles, more in the first (2 s vs 1 s)' },
    { span: { start: 3, end: 5 }, owner: 0, why: 'straddles evenly: the earlier turn' },
    { span: { start: 11, end: 12 }, owner: null, why: 'after every turn' },
    { span: { start: 4, end: 4 }, owner: null, why: 'zero length overlaps nothing' },
    { span: { start: -2, end: 20 }, owner: 1, why: 'covers all: the longest overlap' },
  ])('$why', ({ span, owner }) => {
    expect(attributeSpans([span], turns)).toEqual([owner])
  })

  it('ignores entries without times and keeps the spans order', () => {
    expect(
      attributeSpans(
        [
          { start: 5, end: 6 },
          { start: 0, end: 1 },
        ],
        turns,
      ),
    ).toEqual([1, 0])
  })

  it('reaches back past short entries to a long one that still overlaps', () => {
    const nested = [
      entry(0, 'a', 0, 30),
      ...Array.from({ length: 20 }, (_, i) => entry(i + 1, 'b', 1 + i, 1.1 + i)),
    ]
    expect(attributeSpans([{ start: 25, end: 26 }], nested)).toEqual([0])
  })
})

describe('clock', () => {
  it.each([
    [0, '0:00.0'],
    [5.25, '0:05.3'],
    [65.04, '1:05.0'],
    [3600 + 62.7, '1:01:02'],
    [null, '–'],
  ])('%s → %s', (seconds, text) => {
    expect(clock(seconds)).toBe(text)
  })
})
