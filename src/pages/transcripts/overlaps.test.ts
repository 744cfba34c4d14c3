import { describe, expect, it } from 'vitest'
import { EMPTY_EDITS, type LabelEdits, type StoredResult } from '../../../schema/index.ts'
import { nameOf, regionsInView, regionsOf, rename, speakerOf } from './labels.ts'
import { lanesOf, MIN_OVERLAP_SECONDS, type Overlap, overlapNote, overlapsOf } from './overlaps.ts'
import { entriesOf } from './turns.ts'

/**
 * Two people at once, as the upload diarizer reports them: speaker_0 talks 0–5 s, speaker_1 4–10 s (their spans
 * overlap for a second), and speaker_1 says "mm-hmm" at 12.5–13 s during speaker_0's second turn (12–16 s). The turns
 * are who holds the floor and never overlap.
 */
const result: StoredResult = {
  text: 'one two three',
  warnings: [],
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1'],
    segments: [
      { id: 0, start: 0, end: 5, speaker: 'speaker_0' },
      { id: 1, start: 4, end: 10, speaker: 'speaker_1' },
      { id: 2, start: 12, end: 16, speaker: 'speaker_0' },
      { id: 3, start: 12.5, end: 13, speaker: 'speaker_1' },
    ],
    turns: [
      { speaker: 'speaker_0', start: 0, end: 5, text: 'one' },
      { speaker: 'speaker_1', start: 5, end: 10, text: 'two' },
      { speaker: 'speaker_0', start: 12, end: 16, text: 'three' },
    ],
  },
}
const { entries } = entriesOf(result)

/** The rows' overlaps after `edits`, as the turn list works them out. */
function overlaps(edits: LabelEdits = EMPTY_EDITS): Overlap[][] {
  const rows = entries.map((e) => ({ start: e.start, end: e.end, speaker: speakerOf(edits, e) }))
  return overlapsOf(rows, regionsOf(result, entries, edits))
}

describe('overlapsOf', () => {
  it('finds another speaker talking at once inside a turn, and nothing where only one talks', () => {
    expect(overlaps()).toEqual([
      [{ speaker: 'speaker_1', start: 4, end: 5 }],
      // speaker_0 stopped at 5 s, where speaker_1's turn begins.
      [],
      [{ speaker: 'speaker_1', start: 12.5, end: 13 }],
    ])
  })

  it('follows a reassigned turn: the other voice keeps its own speaker', () => {
    // Turn 2 given to a new speaker: the "mm-hmm" inside it is still speaker_1's, talking at once with speaker_2.
    const e = { ...EMPTY_EDITS, turns: { '2': 'speaker_2' } }
    expect(regionsOf(result, entries, e).map((r) => r.speaker)).toEqual([
      'speaker_0',
      'speaker_1',
      'speaker_2',
      'speaker_1',
    ])
    expect(overlaps(e)[2]).toEqual([{ speaker: 'speaker_1', start: 12.5, end: 13 }])
    // Turn 2 given to speaker_1: its own "mm-hmm" is no overlap with itself.
    const mine = { ...EMPTY_EDITS, turns: { '2': 'speaker_1' } }
    expect(overlaps(mine)[2]).toEqual([])
  })

  it('sees two speakers merged into one as one voice', () => {
    expect(overlaps({ ...EMPTY_EDITS, merges: { speaker_1: 'speaker_0' } })).toEqual([[], [], []])
  })

  it('cuts at split points: each part has the overlaps in its own time', () => {
    const e: LabelEdits = { ...EMPTY_EDITS, splits: { '0': [{ at: 4.5, speaker: 'speaker_2' }] } }
    const rows = [
      { start: 0, end: 4.5, speaker: 'speaker_0' },
      { start: 4.5, end: 5, speaker: 'speaker_2' },
    ]
    expect(overlapsOf(rows, regionsOf(result, entries, e))).toEqual([
      [{ speaker: 'speaker_1', start: 4, end: 4.5 }],
      [{ speaker: 'speaker_1', start: 4.5, end: 5 }],
    ])
  })

  it('joins a speaker’s touching spans, leaves out slivers, and lists several speakers in time order', () => {
    const talk = [
      { start: 0, end: 10, speaker: 'a' },
      { start: 2, end: 3, speaker: 'b' },
      { start: 3, end: 4, speaker: 'b' },
      { start: 1, end: 1.5, speaker: 'c' },
      { start: 6, end: 6 + MIN_OVERLAP_SECONDS / 2, speaker: 'c' },
      // Outside the row.
      { start: 11, end: 12, speaker: 'b' },
      { start: 5, end: 6, speaker: null },
    ]
    expect(overlapsOf([{ start: 0, end: 10, speaker: 'a' }], talk)).toEqual([
      [
        { speaker: 'c', start: 1, end: 1.5 },
        { speaker: 'b', start: 2, end: 4 },
      ],
    ])
  })

  it('has nothing for untimed or unattributed rows, one speaker alone, or no spans', () => {
    const talk = [
      { start: 0, end: 5, speaker: 'a' },
      { start: 1, end: 2, speaker: 'b' },
    ]
    expect(
      overlapsOf(
        [
          { start: null, end: null, speaker: 'a' },
          { start: 0, end: 5, speaker: null },
          { start: 0, end: 5, speaker: 'nobody-talks' },
        ],
        talk,
      ),
    ).toEqual([[], [], []])
    expect(overlapsOf([{ start: 0, end: 5, speaker: 'a' }], talk.slice(0, 1))).toEqual([[]])
    expect(overlapsOf([{ start: 0, end: 5, speaker: 'a' }], [])).toEqual([[]])
  })

  it('answers for 5,000 turns and 10,000 spans at once', () => {
    const talk = Array.from({ length: 10_000 }, (_, i) => ({
      start: i * 0.72,
      end: i * 0.72 + 1,
      speaker: `s${i % 2}`,
    }))
    const rows = Array.from({ length: 5000 }, (_, i) => ({
      start: i * 1.44,
      end: i * 1.44 + 1.44,
      speaker: 's0',
    }))
    const started = performance.now()
    const found = overlapsOf(rows, talk)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(found[1]).toEqual([
      { speaker: 's1', start: expect.closeTo(1.44, 6), end: expect.closeTo(1.72, 6) },
      { speaker: 's1', start: expect.closeTo(2.16, 6), end: expect.closeTo(2.44, 6) },
    ])
  })
})

describe('overlapNote', () => {
  const named = rename(EMPTY_EDITS, 'speaker_1', 'Jackson')
  const name = (id: string) => nameOf(named, id)

  it('names the other speakers as reviewers renamed them, with the times', () => {
    expect(overlapNote([{ speaker: 'speaker_1', start: 4, end: 5 }], name)).toBe(
      'Also speaking: Jackson 0:04.0–0:05.0',
    )
    expect(overlapNote([], name)).toBe('')
  })

  it('gives each speaker’s first stretches and how many more', () => {
    const o = (speaker: string, start: number) => ({ speaker, start, end: start + 0.5 })
    expect(
      overlapNote(
        [o('speaker_1', 1), o('speaker_2', 2), o('speaker_1', 3), o('speaker_1', 65), o('speaker_1', 70)],
        name,
      ),
    ).toBe('Also speaking: Jackson 0:01.0–0:01.5, 0:03.0–0:03.5 and 2 more; speaker_2 0:02.0–0:02.5')
  })
})

describe('the waveform with overlap', () => {
  it('has a row for every speaker a region shows, in the page’s order, added speakers and nobody last', () => {
    const r = (speaker: string | null) => ({ speaker })
    expect(
      lanesOf(['speaker_0', 'speaker_1', 'speaker_2'], [r('speaker_1'), r(null), r('speaker_0')]),
    ).toEqual(['speaker_0', 'speaker_1', null])
    expect(lanesOf(['speaker_0'], [r('speaker_9'), r('speaker_0')])).toEqual(['speaker_0', 'speaker_9'])
    expect(lanesOf(['speaker_0'], [])).toEqual([])
  })

  it('keeps each voice in its bins when coalesced, so two people at once both show', () => {
    const region = (id: number, start: number, end: number, speaker: string) => ({
      id: `span-${id}`,
      start,
      end,
      speaker,
    })
    const regions = [
      region(0, 0, 6, 'a'),
      region(1, 4, 10, 'b'),
      region(2, 12, 16, 'a'),
      region(3, 12.5, 13, 'b'),
      region(4, 15.5, 15.7, 'b'),
    ]
    // Four bins of 4 s: 0–4 a; 4–8 b, and a for half of it (drawn too); 8–12 b; 12–16 a, b's 0.7 s under half
    // (left out).
    expect(regionsInView(regions, 0, 16, 4.5).map((r) => [r.speaker, r.start, r.end])).toEqual([
      ['a', 0, 8],
      ['b', 4, 12],
      ['a', 12, 16],
    ])
  })
})
