import { describe, expect, it } from 'vitest'
import { EMPTY_EDITS, type LabelEdits, type StoredResult } from '../../../schema/index.ts'
import {
  colorOf,
  currentSpeakers,
  hasEdits,
  labelMap,
  merge,
  nameOf,
  originalSpeakers,
  reassign,
  regionsInView,
  regionsOf,
  rename,
  resolveSpeaker,
  SPEAKER_COLORS,
  speakerOf,
} from './labels.ts'
import { entriesOf } from './turns.ts'

const edits = (patch: Partial<LabelEdits> = {}): LabelEdits => ({ ...EMPTY_EDITS, ...patch })

const result: StoredResult = {
  text: 'one two three four',
  warnings: [],
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1', 'speaker_2'],
    segments: [
      { id: 0, start: 0, end: 2, speaker: 'speaker_0' },
      { id: 1, start: 2, end: 4, speaker: 'speaker_1' },
      // Straddles turns 1 and 2: 1 s in turn 1 (until 5), 2 s in turn 2.
      { id: 2, start: 4, end: 7, speaker: 'speaker_1' },
      { id: 3, start: 7, end: 9, speaker: 'speaker_2' },
    ],
    turns: [
      { speaker: 'speaker_0', start: 0, end: 2, text: 'one' },
      { speaker: 'speaker_1', start: 2, end: 5, text: 'two' },
      { speaker: 'speaker_2', start: 5, end: 9, text: 'three' },
      { speaker: null, start: null, end: null, text: 'four' },
    ],
  },
}
const { entries } = entriesOf(result)
const all = originalSpeakers(result)

describe('speakers after edits', () => {
  it.each([
    { edits: edits(), id: 'speaker_1', resolved: 'speaker_1' },
    { edits: edits({ merges: { speaker_1: 'speaker_0' } }), id: 'speaker_1', resolved: 'speaker_0' },
    {
      edits: edits({ merges: { speaker_2: 'speaker_1', speaker_1: 'speaker_0' } }),
      id: 'speaker_2',
      resolved: 'speaker_0',
    },
    { edits: edits({ merges: { a: 'b', b: 'a' } }), id: 'a', resolved: 'a' }, // a cycle stops where it closes
    { edits: edits(), id: null, resolved: null },
  ])('resolveSpeaker($id) with $edits.merges is $resolved', ({ edits, id, resolved }) => {
    expect(resolveSpeaker(edits, id)).toBe(resolved)
  })

  it.each([
    { name: 'its own speaker', edits: edits(), index: 1, shown: 'speaker_1' },
    { name: 'null stays unattributed', edits: edits(), index: 3, shown: null },
    {
      name: 'a reassignment wins',
      edits: edits({ turns: { '1': 'speaker_2' } }),
      index: 1,
      shown: 'speaker_2',
    },
    { name: 'reassigned to nobody', edits: edits({ turns: { '1': null } }), index: 1, shown: null },
    {
      name: 'a reassignment follows merges',
      edits: edits({ turns: { '3': 'speaker_2' }, merges: { speaker_2: 'speaker_0' } }),
      index: 3,
      shown: 'speaker_0',
    },
  ])('speakerOf: $name', ({ edits, index, shown }) => {
    expect(speakerOf(edits, entries[index] as (typeof entries)[number])).toBe(shown)
  })

  it('names a speaker by its given name, its id, or Unattributed', () => {
    const e = edits({ names: { speaker_0: 'Interviewer' } })
    expect(nameOf(e, 'speaker_0')).toBe('Interviewer')
    expect(nameOf(e, 'speaker_1')).toBe('speaker_1')
    expect(nameOf(e, null)).toBe('Unattributed')
  })

  it('lists the original speakers in order, then those only turns or spans mention', () => {
    expect(all).toEqual(['speaker_0', 'speaker_1', 'speaker_2'])
    expect(
      originalSpeakers({
        text: '',
        warnings: [],
        diarization: {
          status: 'completed',
          speakers: ['speaker_1'],
          segments: [{ id: 0, start: 0, end: 1, speaker: 'speaker_3' }],
          turns: [{ speaker: 'speaker_0', start: 0, end: 1, text: 'x' }],
        },
      }),
    ).toEqual(['speaker_1', 'speaker_0', 'speaker_3'])
    expect(originalSpeakers({ text: 'x', warnings: [] })).toEqual([])
  })
})

describe('edits', () => {
  it('renames, and a blank name or the id itself clears the name', () => {
    let e = rename(EMPTY_EDITS, 'speaker_0', '  Interviewer ')
    expect(e.names).toEqual({ speaker_0: 'Interviewer' })
    e = rename(e, 'speaker_0', '')
    expect(e.names).toEqual({})
    expect(rename(EMPTY_EDITS, 'speaker_0', 'speaker_0').names).toEqual({})
    expect(EMPTY_EDITS.names).toEqual({}) // never mutated
  })

  it.each([
    {
      name: 'merges one into another',
      start: edits(),
      from: 'speaker_1',
      into: 'speaker_0',
      merges: { speaker_1: 'speaker_0' },
    },
    { name: 'into itself does nothing', start: edits(), from: 'speaker_1', into: 'speaker_1', merges: {} },
    {
      name: 'into a merged speaker goes to where it went',
      start: edits({ merges: { speaker_1: 'speaker_0' } }),
      from: 'speaker_2',
      into: 'speaker_1',
      merges: { speaker_1: 'speaker_0', speaker_2: 'speaker_0' },
    },
    {
      name: 'back the other way cannot make a cycle',
      start: edits({ merges: { speaker_1: 'speaker_0' } }),
      from: 'speaker_0',
      into: 'speaker_1',
      merges: { speaker_1: 'speaker_0' },
    },
  ])('merge: $name', ({ start, from, into, merges }) => {
    expect(merge(start, from, into).merges).toEqual(merges)
  })

  it('reassigns a turn, and choosing its own speaker again removes the reassignment', () => {
    const turn = entries[1] as (typeof entries)[number]
    const moved = reassign(EMPTY_EDITS, turn, 'speaker_0')
    expect(moved.turns).toEqual({ '1': 'speaker_0' })
    expect(reassign(moved, turn, 'speaker_1').turns).toEqual({})
    const nobody = reassign(EMPTY_EDITS, turn, null)
    expect(nobody.turns).toEqual({ '1': null })
    // The trailing null entry can be given a speaker.
    expect(reassign(EMPTY_EDITS, entries[3] as (typeof entries)[number], 'speaker_2').turns).toEqual({
      '3': 'speaker_2',
    })
  })

  it('knows when there are edits, and which speakers still stand', () => {
    expect(hasEdits(EMPTY_EDITS)).toBe(false)
    const e = merge(rename(EMPTY_EDITS, 'speaker_0', 'A'), 'speaker_2', 'speaker_0')
    expect(hasEdits(e)).toBe(true)
    expect(currentSpeakers(all, e)).toEqual(['speaker_0', 'speaker_1'])
    expect(labelMap(all, e)).toEqual({ speaker_0: 'A', speaker_1: 'speaker_1', speaker_2: 'A' })
  })

  it('colours by original position, merged speakers in their target colour', () => {
    expect(colorOf(all, 'speaker_1')).toBe(SPEAKER_COLORS[1])
    expect(colorOf(all, 'unknown')).toBe(SPEAKER_COLORS[3])
    expect(colorOf(all, null)).toMatch(/^#/)
  })
})

describe('regionsOf', () => {
  const speakers = (e: LabelEdits) => regionsOf(result, entries, e).map((r) => r.speaker)

  it('gives one region per span with its own speaker', () => {
    const regions = regionsOf(result, entries, EMPTY_EDITS)
    expect(regions.map((r) => [r.start, r.end, r.speaker])).toEqual([
      [0, 2, 'speaker_0'],
      [2, 4, 'speaker_1'],
      [4, 7, 'speaker_1'],
      [7, 9, 'speaker_2'],
    ])
    expect(new Set(regions.map((r) => r.id)).size).toBe(4)
  })

  it('colours merged spans as their target', () => {
    expect(speakers(edits({ merges: { speaker_1: 'speaker_0' } }))).toEqual([
      'speaker_0',
      'speaker_0',
      'speaker_0',
      'speaker_2',
    ])
  })

  it('moves the spans of a reassigned turn, a straddling span going with the turn it overlaps more', () => {
    // Turn 2 (5–9) reassigned: span 2 (4–7) overlaps it for 2 s against 1 s in turn 1, so it follows turn 2.
    expect(speakers(edits({ turns: { '2': 'speaker_0' } }))).toEqual([
      'speaker_0',
      'speaker_1',
      'speaker_0',
      'speaker_0',
    ])
    // Turn 1 (2–5) reassigned: span 1 follows; span 2 belongs to turn 2 and keeps its own speaker.
    expect(speakers(edits({ turns: { '1': 'speaker_2' } }))).toEqual([
      'speaker_0',
      'speaker_2',
      'speaker_1',
      'speaker_2',
    ])
  })

  it('has no regions without diarization spans', () => {
    expect(regionsOf({ text: 'x', warnings: [] }, [], EMPTY_EDITS)).toEqual([])
  })
})

describe('regionsInView', () => {
  const span = (i: number, start: number, end: number, speaker: string | null) => ({
    id: `span-${i}`,
    start,
    end,
    speaker,
  })
  const spans = [span(0, 0, 4, 'a'), span(1, 4, 6, 'b'), span(2, 6, 10, 'a'), span(3, 12, 20, 'b')]

  it('gives the spans in the window as they are when they fit', () => {
    expect(regionsInView(spans, 5, 13, 10).map((r) => r.id)).toEqual(['span-1', 'span-2', 'span-3'])
    expect(regionsInView(spans, 20, 30, 10)).toEqual([])
  })

  it('coalesces into bins of the speaker talking most, joining neighbours of one speaker', () => {
    // Two bins over 0–20: 0–10 is a for 8 s and b for 2 s; 10–20 is b for 8 s.
    expect(regionsInView(spans, 0, 20, 2).map((r) => [r.start, r.end, r.speaker])).toEqual([
      [0, 10, 'a'],
      [10, 20, 'b'],
    ])
    // Four bins: 0–5 a, 5–10 a (4 s of a, 1 s of b), 10–15 b, 15–20 b → two regions.
    expect(regionsInView(spans, 0, 20, 3.9).map((r) => r.speaker)).toEqual(['a', 'b'])
  })

  it('leaves silent bins empty and stays within the budget for thousands of spans', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => span(i, i * 0.72, i * 0.72 + 0.5, `s${i % 4}`))
    const shown = regionsInView(many, 0, 7200, 300)
    expect(shown.length).toBeLessThanOrEqual(300)
    expect(shown.length).toBeGreaterThan(0)
    expect(
      regionsInView([span(0, 0, 1, 'a'), span(1, 9, 10, 'a')], 0, 10, 1.5).map((r) => [r.start, r.end]),
    ).toEqual([[0, 10]])
  })
})
