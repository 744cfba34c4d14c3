import { describe, expect, it } from 'vitest'
import { EMPTY_EDITS, type LabelEdits, type StoredResult } from '../../../schema/index.ts'
import {
  cuesOf,
  type ExportInput,
  srtTime,
  toJson,
  toSrt,
  toText,
  toVtt,
  vttEscape,
  vttTime,
} from './exporters.ts'
import { originalSpeakers } from './labels.ts'
import { type Entry, entriesOf } from './turns.ts'

const result: StoredResult = {
  text: 'Hello there. [joyful] Hi! <laugh> So & then. tail',
  warnings: [],
  duration: 12,
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1'],
    segments: [
      { id: 0, start: 0.5, end: 2.25, speaker: 'speaker_0' },
      { id: 1, start: 2.25, end: 4, speaker: 'speaker_1' },
    ],
    turns: [
      { speaker: 'speaker_0', start: 0.5, end: 2.25, text: 'Hello there.' },
      { speaker: 'speaker_1', start: 2.25, end: 4, text: '[joyful] Hi! <laugh> So & then.' },
      { speaker: null, start: null, end: null, text: 'tail' },
    ],
  },
}
const { entries } = entriesOf(result)
const speakers = originalSpeakers(result)
const renamed: LabelEdits = { ...EMPTY_EDITS, names: { speaker_0: 'Interviewer' } }
const input = (edits: LabelEdits = renamed, es: readonly Entry[] = entries, r = result): ExportInput => ({
  result: r,
  entries: es,
  edits,
})

describe('timestamps', () => {
  it.each([
    [0, '00:00:00,000', '00:00:00.000'],
    [1.2345, '00:00:01,235', '00:00:01.235'],
    [59.9996, '00:01:00,000', '00:01:00.000'],
    [3723.5, '01:02:03,500', '01:02:03.500'],
    [-1, '00:00:00,000', '00:00:00.000'],
  ])('%s s → %s / %s', (seconds, srt, vtt) => {
    expect(srtTime(seconds)).toBe(srt)
    expect(vttTime(seconds)).toBe(vtt)
  })
})

describe('cues', () => {
  it.each([
    {
      name: 'the trailing null entry runs from the last end to the end of the recording',
      entries,
      duration: 12,
      last: { start: 4, end: 12, speaker: null, text: 'tail' },
    },
    {
      name: 'and lasts at least a second when the recording ends sooner',
      entries,
      duration: 4.2,
      last: { start: 4, end: 5, speaker: null, text: 'tail' },
    },
    {
      name: 'a zero-length turn still gets a millisecond',
      entries: [{ index: 0, speaker: 'speaker_0', start: 3, end: 3, text: 'blip' }],
      duration: 12,
      last: { start: 3, end: 3.001, speaker: 'speaker_0', text: 'blip' },
    },
  ])('$name', ({ entries: es, duration, last }) => {
    const cues = cuesOf({ ...input(EMPTY_EDITS, es), duration })
    expect(cues.at(-1)).toEqual(last)
  })

  it('sorts by time and leaves out empty texts', () => {
    const es: Entry[] = [
      { index: 0, speaker: 'speaker_1', start: 5, end: 6, text: 'later' },
      { index: 1, speaker: 'speaker_0', start: 1, end: 2, text: 'sooner' },
      { index: 2, speaker: 'speaker_0', start: 3, end: 4, text: '   ' },
    ]
    expect(cuesOf(input(EMPTY_EDITS, es)).map((c) => c.text)).toEqual(['sooner', 'later'])
  })
})

describe('SRT', () => {
  it('numbers cues, uses comma milliseconds and speaker names after edits', () => {
    expect(toSrt(input())).toBe(
      [
        '1\n00:00:00,500 --> 00:00:02,250\nInterviewer: Hello there.\n',
        '2\n00:00:02,250 --> 00:00:04,000\nspeaker_1: [joyful] Hi! <laugh> So & then.\n',
        '3\n00:00:04,000 --> 00:00:12,000\ntail\n',
      ].join('\n'),
    )
  })

  it('shows a merged speaker under the target name, and a reassigned turn under its new speaker', () => {
    const edits: LabelEdits = {
      names: { speaker_0: 'Interviewer' },
      merges: { speaker_1: 'speaker_0' },
      turns: {},
    }
    expect(toSrt(input(edits))).toContain('Interviewer: [joyful] Hi!')
    const moved: LabelEdits = { ...renamed, turns: { '2': 'speaker_1' } }
    expect(toSrt(input(moved))).toContain('00:00:04,000 --> 00:00:12,000\nspeaker_1: tail')
  })

  it('never leaves a blank line inside a cue', () => {
    const es: Entry[] = [{ index: 0, speaker: null, start: 0, end: 1, text: 'a\n\n\nb' }]
    expect(toSrt(input(EMPTY_EDITS, es))).toBe('1\n00:00:00,000 --> 00:00:01,000\na\nb\n')
  })
})

describe('WebVTT', () => {
  it('starts with the header and puts speakers in voice spans, escaping markup', () => {
    expect(toVtt(input())).toBe(
      [
        'WEBVTT\n',
        '00:00:00.500 --> 00:00:02.250\n<v Interviewer>Hello there.</v>\n',
        '00:00:02.250 --> 00:00:04.000\n<v speaker_1>[joyful] Hi! &lt;laugh&gt; So &amp; then.</v>\n',
        '00:00:04.000 --> 00:00:12.000\ntail\n',
      ].join('\n'),
    )
  })

  it.each([
    ['a < b', 'a &lt; b'],
    ['x --> y', 'x --&gt; y'],
    ['Tom & Jerry', 'Tom &amp; Jerry'],
  ])('escapes %j', (raw, escaped) => {
    expect(vttEscape(raw)).toBe(escaped)
  })

  it('escapes a speaker name that would break the voice tag', () => {
    const edits: LabelEdits = { ...EMPTY_EDITS, names: { speaker_0: 'A<b>&c' } }
    expect(toVtt(input(edits))).toContain('<v A&lt;b&gt;&amp;c>Hello there.</v>')
  })

  it('has only the header for an empty transcript', () => {
    expect(toVtt(input(EMPTY_EDITS, []))).toBe('WEBVTT\n')
  })
})

describe('JSON', () => {
  it('keeps the original result unchanged and adds the label map', () => {
    const edits: LabelEdits = {
      names: { speaker_0: 'Interviewer' },
      merges: { speaker_1: 'speaker_0' },
      turns: { '2': 'speaker_1' },
    }
    const parsed = JSON.parse(toJson(input(edits), speakers))
    const { labels, ...original } = parsed
    expect(original).toEqual(result)
    expect(labels).toEqual({
      speakers: { speaker_0: 'Interviewer', speaker_1: 'Interviewer' },
      turns: [{ index: 2, speaker: 'speaker_0', name: 'Interviewer' }],
      edits,
    })
  })
})

describe('plain text', () => {
  it('has one line per entry with timecodes and names; untimed entries say so', () => {
    expect(toText(input())).toBe(
      [
        '[00:00:00.5 - 00:00:02.2] Interviewer: Hello there.',
        '[00:00:02.2 - 00:00:04.0] speaker_1: [joyful] Hi! <laugh> So & then.',
        '[untimed] Unattributed: tail',
        '',
      ].join('\n'),
    )
  })

  it('works on a transcript without speaker labels', () => {
    const plain: StoredResult = {
      text: 'a b',
      warnings: [],
      segments: [{ id: 0, start: 0, end: 1, text: 'a b' }],
    }
    const es = entriesOf(plain).entries
    expect(toText(input(EMPTY_EDITS, es, plain))).toBe('[00:00:00.0 - 00:00:01.0] Unattributed: a b\n')
    expect(toSrt(input(EMPTY_EDITS, es, plain))).toBe('1\n00:00:00,000 --> 00:00:01,000\na b\n')
  })
})
