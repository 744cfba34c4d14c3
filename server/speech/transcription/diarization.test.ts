import { describe, expect, it } from 'vitest'
import { diarizationBlockSchema } from '../../../schema/index.ts'
import { buildDiarization, failedDiarization, type SpeakerSpanInput, type TimedText } from './diarization.ts'

/** The diarization block's rules (contract 4.12, 7), each on constructed inputs. */

const seg = (start: number, end: number, text: string): TimedText => ({ start, end, text })
const span = (start: number, end: number, speaker: number): SpeakerSpanInput => ({ start, end, speaker })

/** Every word of the transcript appears in the turns exactly once, in order. */
function wordsOf(texts: string[]) {
  return texts.join(' ').split(/\s+/).filter(Boolean)
}

describe('segments and speakers', () => {
  it('lists every span the diarizer produced, sorted, numbered, in seconds, labelled by first appearance', () => {
    const { diarization } = buildDiarization(
      [seg(0, 1, 'hi')],
      [span(5, 6.0004, 3), span(0, 2, 7), span(2.5, 4, 3), span(6.5, 7, 7)],
    )
    expect(diarization.status).toBe('completed')
    expect(diarization.speakers).toEqual(['speaker_0', 'speaker_1'])
    expect(diarization.segments).toEqual([
      { id: 0, start: 0, end: 2, speaker: 'speaker_0' },
      { id: 1, start: 2.5, end: 4, speaker: 'speaker_1' },
      { id: 2, start: 5, end: 6, speaker: 'speaker_1' },
      { id: 3, start: 6.5, end: 7, speaker: 'speaker_0' },
    ])
    expect(diarizationBlockSchema.parse(diarization)).toEqual(diarization)
  })

  it('drops spans of no length or with non-finite times', () => {
    const { diarization } = buildDiarization(
      [],
      [span(1, 1, 0), span(2, 1, 0), span(Number.NaN, 3, 1), span(0, 1, 2)],
    )
    expect(diarization.segments).toEqual([{ id: 0, start: 0, end: 1, speaker: 'speaker_0' }])
    expect(diarization.speakers).toEqual(['speaker_0'])
  })
})

describe('turns', () => {
  const cases: Array<{
    name: string
    transcript: TimedText[]
    spans: SpeakerSpanInput[]
    turns: unknown
    warnings?: string[]
  }> = [
    {
      name: 'merges consecutive same-speaker spans into one turn with all their text',
      transcript: [seg(0, 1.5, 'hello there'), seg(2.2, 3.5, 'how are you'), seg(4.1, 5, 'fine thanks')],
      spans: [span(0, 1.8, 0), span(2, 3.6, 0), span(4, 5.2, 1)],
      turns: [
        { speaker: 'speaker_0', start: 0, end: 3.6, text: 'hello there how are you' },
        { speaker: 'speaker_1', start: 4, end: 5.2, text: 'fine thanks' },
      ],
    },
    {
      name: 'gives a segment straddling a speaker change wholly to the turn it overlaps more (later turn)',
      transcript: [seg(1.5, 3, 'straddling words')],
      spans: [span(0, 2, 0), span(2, 4, 1)],
      turns: [{ speaker: 'speaker_1', start: 2, end: 4, text: 'straddling words' }],
    },
    {
      name: 'gives a segment straddling a speaker change wholly to the turn it overlaps more (earlier turn)',
      transcript: [seg(1, 2.4, 'mostly first'), seg(2.6, 3.5, 'second')],
      spans: [span(0, 2, 0), span(2, 4, 1)],
      turns: [
        { speaker: 'speaker_0', start: 0, end: 2, text: 'mostly first' },
        { speaker: 'speaker_1', start: 2, end: 4, text: 'second' },
      ],
    },
    {
      name: 'breaks an exact tie in favour of the earlier turn',
      transcript: [seg(1, 3, 'even split')],
      spans: [span(0, 2, 0), span(2, 4, 1)],
      turns: [{ speaker: 'speaker_0', start: 0, end: 2, text: 'even split' }],
    },
    {
      name: 'returns text in no turn as a trailing entry with null speaker and times',
      transcript: [seg(0.2, 1, 'inside'), seg(10, 11, 'outside one'), seg(12, 13, 'outside two')],
      spans: [span(0, 2, 0)],
      turns: [
        { speaker: 'speaker_0', start: 0, end: 2, text: 'inside' },
        { speaker: null, start: null, end: null, text: 'outside one outside two' },
      ],
    },
    {
      name: 'leaves out turns without text and merges the same-speaker neighbours that meet',
      transcript: [seg(0, 1, 'one'), seg(4, 5, 'two')],
      spans: [span(0, 1.5, 0), span(2, 3, 1), span(3.5, 5.5, 0)],
      turns: [{ speaker: 'speaker_0', start: 0, end: 5.5, text: 'one two' }],
    },
    {
      name: 'attributes a zero-length segment to the turn that contains it',
      transcript: [seg(3, 3, 'blip')],
      spans: [span(0, 2, 0), span(2, 4, 1)],
      turns: [{ speaker: 'speaker_1', start: 2, end: 4, text: 'blip' }],
    },
    {
      name: 'ignores empty transcript segments',
      transcript: [seg(0, 1, '  '), seg(1, 2, 'word')],
      spans: [span(0, 2, 0)],
      turns: [{ speaker: 'speaker_0', start: 0, end: 2, text: 'word' }],
    },
    {
      name: 'keeps overlapping speech: a segment inside an interjection goes to the turn it overlaps most',
      transcript: [seg(0, 3, 'long first'), seg(3.2, 3.8, 'yeah'), seg(4.5, 6, 'first again')],
      spans: [span(0, 7, 0), span(3.1, 3.9, 1), span(6.5, 8, 0)],
      turns: [{ speaker: 'speaker_0', start: 0, end: 8, text: 'long first yeah first again' }],
    },
    {
      name: 'passes the floor to the one still talking when the holder stops, each keeping their own words',
      transcript: [seg(0, 4, 'first speaks'), seg(6, 9, 'second goes on')],
      spans: [span(0, 5, 0), span(4, 10, 1)],
      turns: [
        { speaker: 'speaker_0', start: 0, end: 5, text: 'first speaks' },
        { speaker: 'speaker_1', start: 5, end: 10, text: 'second goes on' },
      ],
    },
    {
      name: 'omits turns with a warning when spans exist but no text matches them',
      transcript: [seg(10, 11, 'late words')],
      spans: [span(0, 2, 0)],
      turns: undefined,
      warnings: ['diarization_text_unavailable'],
    },
    {
      name: 'omits turns with a warning when spans exist but there is no text at all',
      transcript: [],
      spans: [span(0, 2, 0)],
      turns: undefined,
      warnings: ['diarization_text_unavailable'],
    },
    {
      name: 'omits turns with a warning when there is text but no span',
      transcript: [seg(0, 1, 'words')],
      spans: [],
      turns: undefined,
      warnings: ['diarization_text_unavailable'],
    },
    {
      name: 'returns an empty list for silence (no text, no spans)',
      transcript: [],
      spans: [],
      turns: [],
    },
  ]

  for (const c of cases) {
    it(c.name, () => {
      const { diarization, warnings } = buildDiarization(c.transcript, c.spans)
      expect(diarization.status).toBe('completed')
      if (c.turns === undefined) expect('turns' in diarization).toBe(false)
      else expect(diarization.turns).toEqual(c.turns)
      expect(warnings.map((w) => w.code)).toEqual(c.warnings ?? [])
      if (diarization.turns) {
        // No duplication, no loss: the turns hold exactly the transcript's words, in order.
        expect(wordsOf(diarization.turns.map((t) => t.text)).sort()).toEqual(
          wordsOf(c.transcript.map((t) => t.text)).sort(),
        )
        // The trailing unmatched entry, if any, is last and the only one without a speaker.
        const nulls = diarization.turns.filter((t) => t.speaker === null)
        expect(nulls.length).toBeLessThanOrEqual(1)
        if (nulls.length === 1) expect(diarization.turns.at(-1)?.speaker).toBeNull()
      }
    })
  }

  it('never duplicates or loses words over many random transcripts and span layouts', () => {
    let seed = 7
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (let trial = 0; trial < 300; trial++) {
      const transcript: TimedText[] = []
      let t = 0
      for (let i = 0; i < 1 + Math.floor(rand() * 10); i++) {
        const start = t + rand() * 2
        const end = start + rand() * 3
        transcript.push(seg(start, end, `w${trial}_${i}a w${trial}_${i}b`))
        t = end
      }
      const spans: SpeakerSpanInput[] = []
      t = 0
      for (let i = 0; i < Math.floor(rand() * 8); i++) {
        const start = t + rand() * 3
        const end = start + 0.1 + rand() * 4
        spans.push(span(start, end, Math.floor(rand() * 3)))
        t = rand() < 0.3 ? start + 0.5 : end
      }
      const { diarization } = buildDiarization(transcript, spans)
      expect(diarization.segments).toHaveLength(spans.length)
      if (!diarization.turns) continue
      expect(wordsOf(diarization.turns.map((x) => x.text))).toEqual(
        expect.arrayContaining(wordsOf(transcript.map((x) => x.text))),
      )
      expect(wordsOf(diarization.turns.map((x) => x.text))).toHaveLength(
        wordsOf(transcript.map((x) => x.text)).length,
      )
      for (let i = 1; i < diarization.turns.length; i++) {
        const [a, b] = [diarization.turns[i - 1], diarization.turns[i]]
        if (a?.speaker !== null && b?.speaker !== null) expect(a?.speaker).not.toBe(b?.speaker)
      }
    }
  })
})

describe('failure', () => {
  it('reports failed with empty speakers and segments, no turns and the diarization_failed warning', () => {
    const { diarization, warnings } = buildDiarization([], [])
    expect(diarization.turns).toEqual([])
    expect(warnings).toEqual([])
    const failed = failedDiarization()
    expect(failed.diarization).toEqual({ status: 'failed', speakers: [], segments: [] })
    expect('turns' in failed.diarization).toBe(false)
    expect(failed.warnings.map((w) => w.code)).toEqual(['diarization_failed'])
  })
})
