import { describe, expect, it } from 'vitest'
import { transcriptionJsonSchema, transcriptionVerboseJsonSchema } from '../../../schema/index.ts'
import { renderTranscript, type TranscriptParts, timestamp, toSrt, toVtt } from './transcript-formats.ts'

const parts: TranscriptParts = {
  text: 'hello world how are you',
  segments: [
    { start: 0.5, end: 1.2345, text: 'hello world' },
    { start: 2, end: 3661.5, text: 'how are you' },
  ],
  words: [
    { text: 'hello', start: 0.5, end: 0.8 },
    { text: 'world', start: 0.85, end: 1.2345 },
    { text: 'how', start: 2, end: 2.2 },
    { text: 'are', start: 2.2, end: 2.4 },
    { text: 'you', start: 2.4, end: 3661.5 },
  ],
  duration: 3662.0004,
  warnings: [],
}

describe('timestamps', () => {
  it('formats hours, minutes, seconds and rounded milliseconds', () => {
    expect(timestamp(0, ',')).toBe('00:00:00,000')
    expect(timestamp(1.2345, ',')).toBe('00:00:01,235')
    expect(timestamp(3661.5, '.')).toBe('01:01:01.500')
    expect(timestamp(59.9996, '.')).toBe('00:01:00.000')
    expect(timestamp(-1, ',')).toBe('00:00:00,000')
  })
})

describe('subtitle formats', () => {
  const seg = (words: Array<[string, number, number]>) => ({
    start: words[0]?.[1] ?? 0,
    end: words.at(-1)?.[2] ?? 0,
    text: words.map((w) => w[0]).join(' '),
    words: words.map(([text, start, end]) => ({ text, start, end })),
  })
  const short = [
    seg([
      ['hello', 0.5, 0.8],
      ['world', 0.85, 1.7345],
    ]),
    seg([
      ['how', 3661, 3661.2],
      ['are', 3661.2, 3661.4],
      ['you', 3661.4, 3662.5],
    ]),
  ]

  it('writes numbered srt cues separated by blank lines', () => {
    expect(toSrt(short)).toBe(
      '1\n00:00:00,500 --> 00:00:01,735\nhello world\n\n2\n01:01:01,000 --> 01:01:02,500\nhow are you\n',
    )
  })

  it('writes a WEBVTT header and cues', () => {
    expect(toVtt(short)).toBe(
      'WEBVTT\n\n00:00:00.500 --> 00:00:01.735\nhello world\n\n01:01:01.000 --> 01:01:02.500\nhow are you\n',
    )
  })

  it('cuts a long segment into cues of at most 7 s and two lines of 42 characters at its word times', () => {
    // 40 words of 0.3 s each: 12 s, 200 characters.
    const long = seg(Array.from({ length: 40 }, (_, i) => [`word${i % 10}`, i * 0.3, i * 0.3 + 0.25]))
    const srt = toSrt([long])
    const cues = srt.trim().split('\n\n')
    expect(cues.length).toBeGreaterThan(2)
    for (const cue of cues) {
      const [, times, ...lines] = cue.split('\n')
      const [from, to] = (times as string).split(' --> ').map(seconds)
      expect((to as number) - (from as number)).toBeLessThanOrEqual(7)
      expect(lines.length).toBeLessThanOrEqual(2)
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(42)
    }
    expect(cues.flatMap((c) => c.split('\n').slice(2)).join(' ')).toBe(long.text)
  })

  it('spreads a segment without word times over its span', () => {
    const srt = toSrt([{ start: 0, end: 20, text: Array.from({ length: 30 }, () => 'many').join(' ') }])
    const ends = [...srt.matchAll(/--> (\S+)/g)].map((m) => seconds(m[1] as string))
    expect(ends.at(-1)).toBe(20)
    expect(ends.length).toBeGreaterThan(2)
  })

  it('skips empty segments and handles an empty transcript', () => {
    expect(toSrt([{ start: 0, end: 1, text: ' ' }])).toBe('')
    expect(toVtt([])).toBe('WEBVTT\n')
  })
})

function seconds(stamp: string): number {
  const [h, m, s] = stamp.replace(',', '.').split(':').map(Number)
  return (h as number) * 3600 + (m as number) * 60 + (s as number)
}

describe('json bodies', () => {
  it('json carries text and warnings, and the diarization block only when present', () => {
    const { body, contentType } = renderTranscript('json', parts)
    expect(contentType).toMatch(/^application\/json/)
    expect(body).toEqual({ text: 'hello world how are you', warnings: [] })
    expect(transcriptionJsonSchema.parse(body)).toEqual(body)
    const diarized = renderTranscript('json', {
      ...parts,
      diarization: { status: 'failed', speakers: [], segments: [] },
    }).body
    expect(diarized).toMatchObject({ diarization: { status: 'failed' } })
  })

  it('verbose_json adds language, duration, segments with ids and times, and words', () => {
    const { body } = renderTranscript('verbose_json', parts)
    expect(body).toEqual({
      task: 'transcribe',
      language: 'en',
      duration: 3662,
      text: 'hello world how are you',
      segments: [
        { id: 0, start: 0.5, end: 1.235, text: 'hello world' },
        { id: 1, start: 2, end: 3661.5, text: 'how are you' },
      ],
      words: [
        { word: 'hello', start: 0.5, end: 0.8 },
        { word: 'world', start: 0.85, end: 1.235 },
        { word: 'how', start: 2, end: 2.2 },
        { word: 'are', start: 2.2, end: 2.4 },
        { word: 'you', start: 2.4, end: 3661.5 },
      ],
      warnings: [],
    })
    expect(transcriptionVerboseJsonSchema.parse(body)).toEqual(body)
  })

  it('text ends with a newline; srt and vtt have their content types', () => {
    expect(renderTranscript('text', parts)).toEqual({
      contentType: 'text/plain; charset=utf-8',
      body: 'hello world how are you\n',
    })
    expect(renderTranscript('srt', parts).contentType).toMatch(/^application\/x-subrip/)
    expect(renderTranscript('vtt', parts).contentType).toMatch(/^text\/vtt/)
  })
})
