import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadMeetings, MEETINGS_DIR } from '../../../bench/eval-diarization.ts'
import { concat } from '../../../core/concat.ts'
import { silence, speak16k } from '../../testing/audio-16k.ts'
import { decodeAudio } from '../codecs/decode.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import type { Synthesizer } from '../synthesizer.ts'
import { diarizationError } from './der.ts'
import type { SpeakerSpan } from './diarizer.ts'
import { createDiarizer } from './index.ts'

const LINES = [
  ['captain_01', 'Good morning, everyone. Shall we start with the budget for the new building?'],
  ['announcer_09', 'Yes, the numbers came in yesterday and they look better than we expected.'],
  ['captain_01', 'That is good news. How much is left for the furniture and the computers?'],
  ['announcer_09', 'About a third of it, which should be enough if we order before the summer.'],
] as const

let synth: Synthesizer
const turns: Float32Array[] = []
let dialogue: Float32Array
const reference: { start: number; end: number; speaker: string }[] = []

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  const parts: Float32Array[] = []
  let time = 0
  for (const [voice, text] of LINES) {
    const turn = await speak16k(synth, voice, text)
    turns.push(turn)
    reference.push({ start: time, end: time + turn.length / 16_000, speaker: voice })
    parts.push(turn, silence(0.5))
    time += turn.length / 16_000 + 0.5
  }
  dialogue = concat(parts, Float32Array)
}, 120_000)
afterAll(() => synth.close())

describe('diarizer', () => {
  const diarizer = createDiarizer()

  it('recovers the two voices of a dialogue, numbered by first appearance', async () => {
    const spans = await diarizer.diarize(dialogue)
    expect(new Set(spans.map((s) => s.speaker))).toEqual(new Set([0, 1]))
    expect(spans[0]?.speaker).toBe(0)
    // Against labelling all of it one speaker (about half the speech confused). The dialogue is not the same audio in
    // every run: each newly started eSpeak worker renders it slightly differently (27 dB under the signal), and over
    // eight fresh synthesizers it scored 0.12–0.13 six times and about 0.20 twice (docs/diarization.md); the diarizer
    // is deterministic on given samples. Half the one-speaker error still fails a diarizer that merges or swaps the two
    // voices.
    const oneSpeaker = diarizationError(
      reference,
      reference.map((turn) => ({ start: turn.start, end: turn.end, speaker: 0 })),
    ).der
    expect(diarizationError(reference, spans).der).toBeLessThan(oneSpeaker / 2)
  }, 60_000)

  it('honours an exact speaker count', async () => {
    const spans = await diarizer.diarize(dialogue, { numSpeakers: 1 })
    expect(new Set(spans.map((s) => s.speaker)).size).toBe(1)
    const three = await diarizer.diarize(dialogue, { numSpeakers: 3 })
    expect(new Set(three.map((s) => s.speaker)).size).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it('refuses contradictory counts and stops when aborted', async () => {
    await expect(diarizer.diarize(dialogue, { minSpeakers: 3, maxSpeakers: 2 })).rejects.toThrow(RangeError)
    const controller = new AbortController()
    controller.abort()
    await expect(diarizer.diarize(dialogue, { signal: controller.signal })).rejects.toThrow()
  }, 60_000)

  it('finds nobody in silence', async () => {
    expect(await diarizer.diarize(silence(3))).toEqual([])
  }, 60_000)

  it.skipIf(!existsSync(join(MEETINGS_DIR, 'train.rttm')))(
    'counts the people of meetings dominated by one voice within one, the sparse ones included',
    async () => {
      // One voice holds 23–30 s of each; the others say 0.8–4.8 s between them (trn09's second person only ever
      // talks over the first). A count rule that needs every speaker to hold a fair share finds one speaker in all
      // three (trn06 and trn09 off by two); the shipped one counts small clusters that sound distinct.
      const meetings = (await loadMeetings()).filter((m) => ['trn03', 'trn06', 'trn09'].includes(m.id))
      const diarizer = createDiarizer()
      for (const m of meetings) {
        const reference = new Set(m.turns.map((t) => t.speaker)).size
        const found = new Set((await diarizer.diarize(m.audio)).map((s) => s.speaker)).size
        expect(Math.abs(found - reference), m.id).toBeLessThanOrEqual(1)
      }
    },
    120_000,
  )

  it.skipIf(!existsSync(join(MEETINGS_DIR, 'train.rttm')))(
    'gives a count exactly: below the people heard, each holding the floor alone somewhere; all of them, the sparse too',
    async () => {
      // trn08: four people who mostly talk over one another. Asked for two, a third speaker used to slip in (a
      // chain every speaker shared a window with), and the forced joins merged the two longest voices.
      const meetings = await loadMeetings()
      const [meeting] = meetings.filter((m) => m.id === 'trn08')
      const diarizer = createDiarizer()
      for (const count of [{ numSpeakers: 2 }, { maxSpeakers: 2 }]) {
        const spans = await diarizer.diarize((meeting as { audio: Float32Array }).audio, count)
        expect(new Set(spans.map((s) => s.speaker)), JSON.stringify(count)).toEqual(new Set([0, 1]))
        for (const speaker of [0, 1]) {
          const others = spans.filter((s) => s.speaker !== speaker)
          const alone = spans
            .filter((s) => s.speaker === speaker)
            .reduce((total, s) => total + soloSeconds(s, others), 0)
          expect(alone, `${JSON.stringify(count)} speaker ${speaker}`).toBeGreaterThan(1)
        }
      }
      // trn01: four people in 5.8 s of speech, three of them under a second each and mostly over someone else.
      // Asked for four, all four are named (they used to vanish in reconstruction, leaving two).
      const [sparse] = meetings.filter((m) => m.id === 'trn01')
      const four = await diarizer.diarize((sparse as { audio: Float32Array }).audio, { numSpeakers: 4 })
      expect(new Set(four.map((s) => s.speaker))).toEqual(new Set([0, 1, 2, 3]))
    },
    120_000,
  )
})

/** The seconds of `span` no span of `others` covers. */
function soloSeconds(span: SpeakerSpan, others: SpeakerSpan[]): number {
  let covered = 0
  let reached = span.start
  for (const o of [...others].sort((a, b) => a.start - b.start)) {
    const [from, to] = [Math.max(o.start, reached), Math.min(o.end, span.end)]
    if (to > from) {
      covered += to - from
      reached = to
    }
  }
  return span.end - span.start - covered
}

/**
 * Real people (FSDD spoken digits, 8 kHz, `shared/data/speakers` beside the repository or `SPEAKERS_DATA`): read at
 * run time, never committed. Resampled to 16 kHz by the decoder, as uploads are.
 */
const SPEAKERS_DIR = [
  process.env.SPEAKERS_DATA,
  new URL('../../../../shared/data/speakers/', import.meta.url).pathname,
  '/work/shared/data/speakers',
].find((dir): dir is string => Boolean(dir) && existsSync(join(dir as string, '0_george_0.wav')))

/** One take of every digit by `speaker`, 0.1 s apart. */
async function digits(speaker: string, take: number): Promise<Float32Array> {
  const parts: Float32Array[] = []
  for (let digit = 0; digit < 10; digit++) {
    const bytes = readFileSync(join(SPEAKERS_DIR as string, `${digit}_${speaker}_${take}.wav`))
    parts.push((await decodeAudio(bytes, { targetRate: 16_000 })).samples, silence(0.1))
  }
  return concat(parts, Float32Array)
}

/** Consecutive spans of one speaker as one turn. */
function turnOrder(spans: SpeakerSpan[]): number[] {
  return spans.map((s) => s.speaker).filter((speaker, i, all) => i === 0 || all[i - 1] !== speaker)
}

describe.skipIf(!SPEAKERS_DIR)('diarizer on two real people taking turns', () => {
  // George and Jackson (FSDD) alternate, ten digits a turn (about 6 s), half a second between turns.
  const order = ['george', 'jackson', 'george', 'jackson'] as const
  let audio: Float32Array
  const reference: { start: number; end: number; speaker: string }[] = []

  beforeAll(async () => {
    const parts: Float32Array[] = []
    let time = 0
    for (const [i, speaker] of order.entries()) {
      const turn = await digits(speaker, Math.floor(i / 2))
      reference.push({ start: time, end: time + turn.length / 16_000, speaker })
      parts.push(turn, silence(0.5))
      time += turn.length / 16_000 + 0.5
    }
    audio = concat(parts, Float32Array)
  })

  it('finds two speakers whose turns follow the alternation, the count estimated', async () => {
    const spans = await createDiarizer().diarize(audio)
    expect(new Set(spans.map((s) => s.speaker))).toEqual(new Set([0, 1]))
    expect(turnOrder(spans)).toEqual([0, 1, 0, 1])
    expect(diarizationError(reference, spans).der).toBeLessThan(0.2)
  }, 60_000)

  it('splits them as well with the count given', async () => {
    const spans = await createDiarizer().diarize(audio, { numSpeakers: 2 })
    expect(turnOrder(spans)).toEqual([0, 1, 0, 1])
    expect(diarizationError(reference, spans).der).toBeLessThan(0.2)
  }, 60_000)

  it('keeps one of them, talking alone as long, as one speaker', async () => {
    const alone = concat(await Promise.all([0, 1, 2, 3].map((take) => digits('jackson', take))), Float32Array)
    const spans = await createDiarizer().diarize(alone)
    expect(new Set(spans.map((s) => s.speaker))).toEqual(new Set([0]))
  }, 60_000)
})
