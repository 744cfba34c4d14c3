import { beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { silence } from '../../testing/audio-16k.ts'
import {
  joinClips,
  meetingSpeaker,
  realSpeechAvailable,
  spokenDigits,
  talkOver,
} from '../../testing/speakers.ts'
import { diarizationError } from './der.ts'
import type { SpeakerSpan } from './diarizer.ts'
import { createSegmentationDiarizer } from './segmented.ts'

/** Real people (FSDD digits: George and Jackson, each take a different sitting), through the shipped model. */
const RATE = 16_000
const seconds = (audio: Float32Array) => audio.length / RATE

/** The speaker holding most of [from, to). */
function speakerAt(spans: SpeakerSpan[], from: number, to: number): number {
  const talk = new Map<number, number>()
  for (const s of spans) {
    const overlap = Math.min(to, s.end) - Math.max(from, s.start)
    if (overlap > 0) talk.set(s.speaker, (talk.get(s.speaker) ?? 0) + overlap)
  }
  return [...talk].reduce((a, b) => (b[1] > a[1] ? b : a), [-1, 0])[0]
}

describe.skipIf(!realSpeechAvailable())('segmentation diarizer on real people', () => {
  const diarizer = createSegmentationDiarizer()
  let george: Float32Array[]
  let jackson: Float32Array[]

  beforeAll(async () => {
    george = await Promise.all([0, 1, 2].map((take) => spokenDigits('george', [take])))
    jackson = await Promise.all([0, 1, 2].map((take) => spokenDigits('jackson', [take])))
  })

  it('finds a speaker again after a gap longer than a window, with another speaker between', async () => {
    // George (about 6 s), a man of a meeting talking alone for 12 s and a pause (longer than the 10 s window in
    // all), George again. (Not Jackson's takes: each is another sitting, and the model hears the change of room.)
    const first = george[0] as Float32Array
    const middle = concat([await meetingSpeaker('trn03', 'MÉO069', 12), silence(2)], Float32Array)
    const audio = concat([first, middle, george[1] as Float32Array], Float32Array)
    const spans = await diarizer.diarize(audio)
    const returns = seconds(first) + seconds(middle)
    expect(new Set(spans.map((s) => s.speaker))).toEqual(new Set([0, 1]))
    expect(speakerAt(spans, 0, seconds(first))).toBe(0)
    expect(speakerAt(spans, seconds(first), returns - 2)).toBe(1)
    expect(speakerAt(spans, returns, seconds(audio))).toBe(0)
  }, 60_000)

  it('gives both speakers segments where they talk at once', async () => {
    // George, then Jackson starts 3 s before George stops (both at full level), then Jackson alone.
    const a = george[2] as Float32Array
    const b = concat([jackson[2] as Float32Array, jackson[0] as Float32Array], Float32Array)
    const { audio, overlap } = talkOver(a, b, 3)
    const spans = await diarizer.diarize(audio)
    const heard = new Set(
      spans.filter((s) => s.start < overlap.to - 0.5 && s.end > overlap.from + 0.5).map((s) => s.speaker),
    )
    expect(heard.size).toBe(2)
    // Scored with overlap counted: far better than any one-label-per-frame answer could be (a third of the
    // two-person time is lost by one label per frame here).
    const reference = [
      { start: 0, end: a.length / RATE, speaker: 'george' },
      { start: overlap.from, end: seconds(audio), speaker: 'jackson' },
    ]
    expect(diarizationError(reference, spans).der).toBeLessThan(0.2)
  }, 60_000)

  it('gives exactly the count asked for, more than there are people included', async () => {
    const audio = joinClips([george[0] as Float32Array, jackson[0] as Float32Array], 0.5)
    const three = await diarizer.diarize(audio, { numSpeakers: 3 })
    expect(new Set(three.map((s) => s.speaker))).toEqual(new Set([0, 1, 2]))
    const one = await diarizer.diarize(audio, { numSpeakers: 1 })
    expect(new Set(one.map((s) => s.speaker))).toEqual(new Set([0]))
    const atMostOne = await diarizer.diarize(audio, { maxSpeakers: 1 })
    expect(new Set(atMostOne.map((s) => s.speaker))).toEqual(new Set([0]))
  }, 60_000)
})
