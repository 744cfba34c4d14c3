import { describe, expect, it } from 'vitest'
import {
  EMPTY_EDITS,
  type LabelEdits,
  labelEditsSchema,
  MAX_SPLITS_PER_TURN,
  type StoredResult,
  saveLabelsRequestSchema,
} from '../../../schema/index.ts'
import { resultWords } from './cue-words.ts'
import { toJson, toSrt, toText } from './exporters.ts'
import {
  allSpeakers,
  canSplit,
  chosenTarget,
  currentSpeakers,
  hasEdits,
  merge,
  NEW_SPEAKER,
  nameOf,
  newSpeakerId,
  originalSpeakers,
  partsOf,
  reassign,
  regionsOf,
  rename,
  speakerOf,
  split,
  splitTargets,
  UNATTRIBUTED_CHOICE,
  unsplit,
} from './labels.ts'
import { arrange, type OpenTranscript } from './review-store.ts'
import { type Entry, entriesOf, TimeIndex, timeAtX } from './turns.ts'

/**
 * Splitting a turn at the playhead and giving the part after it to another (or a new) speaker: the edit itself, the
 * rows it makes, the waveform's regions and the exports after it, and the saved shape the backend validates.
 */

/** Two people; the machine gave the first one's turn the second one's answer as well (from 4.2 s). */
const result: StoredResult = {
  text: 'so what do you think I think it is fine yes',
  warnings: [],
  duration: 10,
  words: [
    { word: 'so', start: 0.1, end: 0.3 },
    { word: 'what', start: 0.4, end: 0.7 },
    { word: 'do', start: 0.8, end: 1.0 },
    { word: 'you', start: 1.1, end: 1.3 },
    { word: 'think', start: 1.4, end: 1.9 },
    { word: 'I', start: 4.3, end: 4.5 },
    { word: 'think', start: 4.6, end: 4.9 },
    { word: 'it', start: 5.0, end: 5.1 },
    { word: 'is', start: 5.2, end: 5.4 },
    { word: 'fine', start: 5.5, end: 6.0 },
    { word: 'yes', start: 8.1, end: 8.5 },
  ],
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1'],
    segments: [
      { id: 0, start: 0, end: 6.2, speaker: 'speaker_0' },
      { id: 1, start: 8, end: 8.6, speaker: 'speaker_1' },
    ],
    turns: [
      { speaker: 'speaker_0', start: 0, end: 6.2, text: 'so what do you think I think it is fine' },
      { speaker: 'speaker_1', start: 8, end: 8.6, text: 'yes' },
    ],
  },
} as StoredResult

const { entries } = entriesOf(result)
const words = resultWords(result)
const original = originalSpeakers(result)
const first = entries[0] as Entry
const rows = (e: LabelEdits) => partsOf(entries, e, words)
const shown = (e: LabelEdits) =>
  rows(e).map((r) => [r.start, r.end, nameOf(e, speakerOf(e, r)), r.text] as const)

describe('split', () => {
  it('cuts the turn at the playhead and gives the part after it to the chosen speaker', () => {
    const e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')
    expect(e.splits).toEqual({ '0': [{ at: 4.2, speaker: 'speaker_1' }] })
    expect(e.turns).toEqual({}) // the first part keeps the turn's own speaker
    expect(shown(e)).toEqual([
      [0, 4.2, 'speaker_0', 'so what do you think'],
      [4.2, 6.2, 'speaker_1', 'I think it is fine'],
      [8, 8.6, 'speaker_1', 'yes'],
    ])
    expect(rows(e).map((r) => [r.index, r.part ?? 0])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ])
    expect(hasEdits(e)).toBe(true)
    expect(EMPTY_EDITS).toEqual({ names: {}, merges: {}, turns: {} }) // never mutated
  })

  it('splits a part again: only the part after the new point changes hands', () => {
    let e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')
    const after = rows(e)[1] as Entry
    e = split(e, after, 5.45, null)
    expect(shown(e).slice(0, 3)).toEqual([
      [0, 4.2, 'speaker_0', 'so what do you think'],
      [4.2, 5.45, 'speaker_1', 'I think it is'],
      [5.45, 6.2, 'Unattributed', 'fine'],
    ])
    // A point added before an earlier one: the parts stay in time order and keep their speakers.
    e = split(e, rows(e)[0] as Entry, 1.05, 'speaker_1')
    expect(shown(e).slice(0, 4)).toEqual([
      [0, 1.05, 'speaker_0', 'so what do'],
      [1.05, 4.2, 'speaker_1', 'you think'],
      [4.2, 5.45, 'speaker_1', 'I think it is'],
      [5.45, 6.2, 'Unattributed', 'fine'],
    ])
  })

  it.each([
    { name: 'at the very start', at: 0.1 },
    { name: 'at the very end', at: 6.1 },
    { name: 'outside the turn', at: 7 },
    { name: 'not a time', at: Number.NaN },
  ])('refuses a split $name (nothing changes)', ({ at }) => {
    expect(canSplit(EMPTY_EDITS, first, at)).toBe(false)
    expect(split(EMPTY_EDITS, first, at, 'speaker_1')).toBe(EMPTY_EDITS)
  })

  it('refuses an untimed row and a turn holding the most split points', () => {
    expect(canSplit(EMPTY_EDITS, { index: 5, start: null, end: null }, 1)).toBe(false)
    const full: LabelEdits = {
      ...EMPTY_EDITS,
      splits: {
        '0': Array.from({ length: MAX_SPLITS_PER_TURN }, (_, i) => ({ at: 0.01 * (i + 1), speaker: null })),
      },
    }
    expect(canSplit(full, first, 4.2)).toBe(false)
  })

  it('rounds the point to milliseconds', () => {
    expect(split(EMPTY_EDITS, first, 4.20049, null).splits?.['0']?.[0]?.at).toBe(4.2)
  })

  it('joins a part back: it reads as the part before again, and no split leaves no trace', () => {
    let e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')
    e = split(e, rows(e)[1] as Entry, 5.45, null)
    const joined = unsplit(e, rows(e)[1] as Entry)
    expect(joined.splits).toEqual({ '0': [{ at: 5.45, speaker: null }] })
    expect(shown(joined)[0]).toEqual([0, 5.45, 'speaker_0', 'so what do you think I think it is'])
    const none = unsplit(joined, rows(joined)[1] as Entry)
    expect(none).toEqual(EMPTY_EDITS)
    expect('splits' in none).toBe(false)
    expect(rows(none)).toBe(entries)
    // The first part, or a turn never split, has nothing before it to join.
    expect(unsplit(e, rows(e)[0] as Entry)).toBe(e)
    expect(unsplit(e, entries[1] as Entry)).toBe(e)
  })

  it('reassigns a part by its split point, and the first part by the turn', () => {
    const e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')
    const [head, tail] = rows(e) as [Entry, Entry]
    const moved = reassign(e, tail, 'speaker_0')
    expect(moved.splits).toEqual({ '0': [{ at: 4.2, speaker: 'speaker_0' }] })
    expect(reassign(moved, tail, 'speaker_0')).toBe(moved)
    expect(reassign(e, head, 'speaker_1').turns).toEqual({ '0': 'speaker_1' })
  })

  it('follows merges and names into the parts', () => {
    let e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')
    e = rename(merge(e, 'speaker_1', 'speaker_0'), 'speaker_0', 'Ana')
    expect(shown(e).map((r) => r[2])).toEqual(['Ana', 'Ana', 'Ana'])
  })

  it('ignores split points that no longer lie inside their turn', () => {
    const e: LabelEdits = { ...EMPTY_EDITS, splits: { '0': [{ at: 7, speaker: 'speaker_1' }] } }
    expect(shown(e)[0]).toEqual([0, 6.2, 'speaker_0', 'so what do you think I think it is fine'])
  })
})

describe('a new speaker', () => {
  it('gets the first free speaker_N, kept apart from named or merged ids', () => {
    expect(newSpeakerId(original, EMPTY_EDITS)).toBe('speaker_2')
    expect(newSpeakerId(original, { ...EMPTY_EDITS, names: { speaker_2: 'Gone' } })).toBe('speaker_3')
  })

  it('stands beside the original speakers once a part is given to it, with its own colour place', () => {
    const id = newSpeakerId(original, EMPTY_EDITS)
    const e = rename(split(EMPTY_EDITS, first, 4.2, id), id, 'Guest')
    expect(allSpeakers(original, e)).toEqual(['speaker_0', 'speaker_1', 'speaker_2'])
    expect(currentSpeakers(allSpeakers(original, e), e)).toEqual(['speaker_0', 'speaker_1', 'speaker_2'])
    expect(shown(e)[1]?.[2]).toBe('Guest')
    // Merged away, it no longer stands.
    const merged = merge(e, id, 'speaker_1')
    expect(currentSpeakers(allSpeakers(original, merged), merged)).toEqual(['speaker_0', 'speaker_1'])
  })
})

describe('split targets', () => {
  it('offers the other speakers first, then a new one, then nobody', () => {
    const targets = splitTargets(original, EMPTY_EDITS, first)
    expect(targets.map((t) => t.value)).toEqual(['speaker_1', NEW_SPEAKER, UNATTRIBUTED_CHOICE])
    expect(chosenTarget(targets, null)).toBe('speaker_1')
    expect(chosenTarget(targets, NEW_SPEAKER)).toBe(NEW_SPEAKER)
    // A choice not offered for this row (its own speaker) falls back to the first.
    expect(chosenTarget(targets, 'speaker_0')).toBe('speaker_1')
  })
})

describe('after a split', () => {
  const e = split(EMPTY_EDITS, first, 4.2, 'speaker_1')

  it('cuts the waveform region at the split point, the piece after it in the new speaker', () => {
    expect(regionsOf(result, entries, e).map((r) => [r.id, r.start, r.end, r.speaker])).toEqual([
      ['span-0', 0, 4.2, 'speaker_0'],
      ['span-0-1', 4.2, 6.2, 'speaker_1'],
      ['span-1', 8, 8.6, 'speaker_1'],
    ])
  })

  it('exports each part with its speaker', () => {
    const input = { result, entries: rows(e), edits: e, duration: 10 }
    expect(toText(input)).toBe(
      '[00:00:00.0 - 00:00:04.2] speaker_0: so what do you think\n' +
        '[00:00:04.2 - 00:00:06.2] speaker_1: I think it is fine\n' +
        '[00:00:08.0 - 00:00:08.6] speaker_1: yes\n',
    )
    expect(toSrt(input)).toContain('speaker_1: I think it is fine')
    const json = JSON.parse(toJson(input, original)) as { labels: { edits: LabelEdits } }
    expect(json.labels.edits.splits).toEqual({ '0': [{ at: 4.2, speaker: 'speaker_1' }] })
  })

  it('finds the part under the playhead by its position among the rows', () => {
    const index = new TimeIndex(rows(e))
    expect(index.at(3)).toBe(0)
    expect(index.at(5)).toBe(1)
    expect(index.at(8.3)).toBe(2)
    expect(index.next(4.5)).toBe(2)
  })

  it('rearranges an open transcript only when the rows or speakers change', () => {
    const open: OpenTranscript = {
      transcript: {} as OpenTranscript['transcript'],
      entries,
      source: 'turns',
      words,
      rows: entries,
      timeIndex: new TimeIndex(entries),
      original,
      speakers: original,
    }
    expect(arrange(open, rename(EMPTY_EDITS, 'speaker_0', 'A'))).toBe(open)
    const after = arrange(open, e)
    expect(after.rows).toHaveLength(3)
    expect(after.timeIndex.at(5)).toBe(1)
    expect(arrange(after, e)).toBe(after)
    expect(arrange(after, EMPTY_EDITS).rows).toBe(entries)
  })
})

describe('the saved shape', () => {
  it('is accepted by the backend’s schema, and edits saved before splits existed still read', () => {
    const e = split(split(EMPTY_EDITS, first, 4.2, 'speaker_2'), first, 1.05, null)
    expect(saveLabelsRequestSchema.parse({ edits: e, revision: 3 }).edits).toEqual(e)
    expect(labelEditsSchema.parse({ names: {}, merges: {}, turns: {} })).toEqual(EMPTY_EDITS)
  })

  it.each([
    { name: 'a negative time', splits: { '0': [{ at: -1, speaker: null }] } },
    { name: 'an empty list', splits: { '0': [] } },
    { name: 'a turn key that is not an index', splits: { x: [{ at: 1, speaker: null }] } },
    { name: 'an unknown field', splits: { '0': [{ at: 1, speaker: null, text: 'x' }] } },
    {
      name: 'too many points',
      splits: { '0': Array.from({ length: MAX_SPLITS_PER_TURN + 1 }, (_, i) => ({ at: i, speaker: null })) },
    },
  ])('refuses $name', ({ splits }) => {
    expect(labelEditsSchema.safeParse({ ...EMPTY_EDITS, splits }).success).toBe(false)
  })
})

describe('timeAtX', () => {
  it('is the time under the click, not the start of the region clicked', () => {
    expect(timeAtX(300, { left: 100, width: 400 }, 20)).toBeCloseTo(10)
    expect(timeAtX(50, { left: 100, width: 400 }, 20)).toBe(0)
    expect(timeAtX(900, { left: 100, width: 400 }, 20)).toBe(20)
    expect(timeAtX(300, { left: 100, width: 0 }, 20)).toBe(0)
  })
})
