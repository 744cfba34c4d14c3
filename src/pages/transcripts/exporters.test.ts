import { describe, expect, it } from 'vitest'
import { speakerPrefix } from '../../../core/subtitle-cues.ts'
import { EMPTY_EDITS, type LabelEdits, type StoredResult } from '../../../schema/index.ts'
import {
  expectCueLimits,
  prng,
  type RandomWord,
  randomWords,
  readSrt,
  readVtt,
} from '../../../server/testing/subtitles.ts'
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
        // Each cue ends 80 ms before the next begins.
        '1\n00:00:00,500 --> 00:00:02,170\nInterviewer: Hello there.\n',
        '2\n00:00:02,250 --> 00:00:03,920\nspeaker_1: [joyful] Hi! <laugh> So & then.\n',
        // One word lasting 8 s: the cue stops at the 7 s cap.
        '3\n00:00:04,000 --> 00:00:11,000\ntail\n',
      ].join('\n'),
    )
  })

  it('shows a merged speaker under the target name, and a reassigned turn under its new speaker', () => {
    const edits: LabelEdits = {
      names: { speaker_0: 'Interviewer' },
      merges: { speaker_1: 'speaker_0' },
      turns: {},
    }
    // 44 characters on one line: two lines instead, broken where the sentence ends.
    expect(toSrt(input(edits))).toContain('Interviewer: [joyful] Hi!\n<laugh> So & then.')
    const moved: LabelEdits = { ...renamed, turns: { '2': 'speaker_1' } }
    expect(toSrt(input(moved))).toContain('00:00:04,000 --> 00:00:11,000\nspeaker_1: tail')
  })

  it('never leaves a blank line inside a cue', () => {
    const es: Entry[] = [{ index: 0, speaker: null, start: 0, end: 1, text: 'a\n\n\nb' }]
    expect(toSrt(input(EMPTY_EDITS, es))).toBe('1\n00:00:00,000 --> 00:00:01,000\na b\n')
  })
})

describe('WebVTT', () => {
  it('starts with the header and puts speakers in voice spans, escaping markup', () => {
    expect(toVtt(input())).toBe(
      [
        'WEBVTT\n',
        '00:00:00.500 --> 00:00:02.170\n<v Interviewer>Hello there.</v>\n',
        '00:00:02.250 --> 00:00:03.920\n<v speaker_1>[joyful] Hi! &lt;laugh&gt; So &amp; then.</v>\n',
        '00:00:04.000 --> 00:00:11.000\ntail\n',
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
    const { transcript, ...rest } = labels
    expect(rest).toEqual({
      speakers: { speaker_0: 'Interviewer', speaker_1: 'Interviewer' },
      turns: [{ index: 2, speaker: 'speaker_0', name: 'Interviewer' }],
      edits,
    })
    expect(transcript.map((t: { index: number; name: string }) => [t.index, t.name])).toEqual(
      entries.map((e) => [e.index, 'Interviewer']),
    )
  })
})

describe('corrected words', () => {
  const corrected: LabelEdits = { ...renamed, texts: { '0': 'Hello there, my friend.' } }
  const first = entries[0] as Entry

  it('reach the text, subtitle and JSON exports', () => {
    expect(first.text).not.toBe('Hello there, my friend.')
    expect(toText(input(corrected))).toContain('Interviewer: Hello there, my friend.\n')
    expect(toSrt(input(corrected))).toContain('Hello there, my friend.')
    expect(toVtt(input(corrected))).toContain('Hello there, my friend.')
    const json = JSON.parse(toJson(input(corrected), speakers)) as {
      labels: {
        transcript: Array<{ index: number; text: string; words: Array<{ word: string; edited?: true }> }>
      }
    }
    const turn = json.labels.transcript.find((t) => t.index === 0)
    expect(turn?.text).toBe('Hello there, my friend.')
    expect(turn?.words.map((w) => w.word).join(' ')).toBe('Hello there, my friend.')
    expect(turn?.words.some((w) => w.edited)).toBe(true)
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

describe('subtitle limits on every export (fixed-seed random transcripts)', () => {
  const NAMES = ['Anna', 'Dr Someone With A Long Name', 'A<b>&c', 'Bo']

  /** A diarized verbose_json result over random words: segments of 1–15 words given to turns of random speakers. */
  function randomTranscript(random: () => number, opts: { withWords: boolean; trailing: boolean }) {
    const words = randomWords(random, 5 + Math.floor(random() * 150), random() * 30)
    const turns: Array<{ speaker: string | null; start: number | null; end: number | null; text: string }> =
      []
    const trailing: string[] = []
    let i = 0
    while (i < words.length) {
      const segment = words.slice(i, i + 1 + Math.floor(random() * 15))
      i += segment.length
      const text = segment.map((w) => w.text).join(' ')
      if (opts.trailing && random() < 0.1) {
        trailing.push(text)
        continue
      }
      const speaker = `speaker_${Math.floor(random() * 3)}`
      const first = segment[0] as RandomWord
      const last = segment.at(-1) as RandomWord
      const previous = turns.at(-1)
      if (previous && previous.speaker === speaker) {
        previous.end = last.end
        previous.text += ` ${text}`
      } else turns.push({ speaker, start: first.start, end: last.end, text })
    }
    if (trailing.length > 0) turns.push({ speaker: null, start: null, end: null, text: trailing.join(' ') })
    const result: StoredResult = {
      text: words.map((w) => w.text).join(' '),
      warnings: [],
      duration: (words.at(-1)?.end ?? 0) + 1,
      ...(opts.withWords ? { words: words.map((w) => ({ word: w.text, start: w.start, end: w.end })) } : {}),
      diarization: {
        status: 'completed',
        speakers: ['speaker_0', 'speaker_1', 'speaker_2'],
        segments: [],
        turns,
      },
    }
    return result
  }

  it('keeps every cue within 7 s and two lines of 42 characters, with every word once and in order', () => {
    const random = prng(42)
    for (let run = 0; run < 60; run++) {
      const r = randomTranscript(random, { withWords: run % 4 !== 3, trailing: run % 2 === 0 })
      const es = entriesOf(r).entries
      const names: Record<string, string> = {}
      for (const id of ['speaker_0', 'speaker_1', 'speaker_2']) {
        if (random() < 0.5) names[id] = NAMES[Math.floor(random() * NAMES.length)] as string
      }
      const edits: LabelEdits = { ...EMPTY_EDITS, names }
      const exported = input(edits, es, r)
      const expected = cuesOf(exported).flatMap((c) => c.text.split(/\s+/))
      const prefixes = ['speaker_0', 'speaker_1', 'speaker_2']
        .map((id) => speakerPrefix(names[id] ?? id))
        .sort((a, b) => b.length - a.length)
      const srt = readSrt(toSrt(exported))
      expect(expectCueLimits(srt, { prefixes })).toEqual(expected)
      const vtt = readVtt(toVtt(exported))
      expect(expectCueLimits(vtt)).toEqual(expected)
      // Every cue of a turn carries that turn's speaker.
      for (const cue of vtt)
        if (cue.voice !== null)
          expect(
            Object.values(names).concat(
              prefixes.map((p) => p.slice(0, -2)),
              ['speaker_0', 'speaker_1', 'speaker_2'],
            ),
          ).toContain(cue.voice)
    }
  })

  it("places a turn's cues at its words' recognized times", () => {
    const r: StoredResult = {
      text: 'one two three four',
      warnings: [],
      words: [
        { word: 'one', start: 1, end: 1.4 },
        { word: 'two', start: 1.5, end: 1.9 },
        { word: 'three', start: 9.5, end: 9.9 },
        { word: 'four', start: 10, end: 10.5 },
      ],
      diarization: {
        status: 'completed',
        speakers: ['speaker_0'],
        segments: [],
        turns: [{ speaker: 'speaker_0', start: 0.5, end: 11, text: 'one two three four' }],
      },
    }
    const cues = readSrt(toSrt(input(EMPTY_EDITS, entriesOf(r).entries, r)))
    expect(cues.map((c) => [c.start, c.end, c.lines.join(' ')])).toEqual([
      // Held until 17 characters a second can read them (18 and 21 characters).
      [1, 2.059, 'speaker_0: one two'],
      [9.5, 10.735, 'speaker_0: three four'],
    ])
  })
})
