/**
 * Long recordings with known truth, for the diarization benchmarks: the ten AMI excerpts (about 30 s each, 1–4
 * people, overlap) with a turn of one of the six FSDD speakers (one take: ten digits, about 6 s) after each, so that
 * the FSDD people return every minute or so and the meeting people who appear in several excerpts return across
 * them. Two rounds over the ten excerpts (each round another take of each person) make 12 minutes with 27 people;
 * longer recordings repeat those 12 minutes (the same audio again: its speakers keep their labels).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import type { LabelledTurn } from '../server/engine/diarization/rttm.ts'
import { SPEAKERS_DIR } from '../server/testing/speakers.ts'
import { loadMeetings } from './eval-diarization.ts'

const RATE = 16_000
const PEOPLE = ['george', 'jackson', 'lucas', 'nicolas', 'theo', 'yweweler']

export interface LongRecording {
  audio: Float32Array
  truth: LabelledTurn[]
}

/** One take of ten digits by `person`, 0.15 s apart, as one turn from `offset` seconds. */
async function take(person: string, number: number, offset: number) {
  const parts: Float32Array[] = []
  const turns: LabelledTurn[] = []
  let at = 0
  for (let digit = 0; digit < 10; digit++) {
    const bytes = readFileSync(join(SPEAKERS_DIR, `${digit}_${person}_${number}.wav`))
    const clip = (await decodeAudio(bytes, { targetRate: RATE })).samples
    parts.push(clip, new Float32Array(0.15 * RATE))
    at += clip.length + 0.15 * RATE
  }
  // One turn, pauses between digits included, as the meetings' reference turns run through short pauses.
  turns.push({ start: offset, end: offset + (at - 0.15 * RATE) / RATE, speaker: person })
  return { parts, turns, samples: at }
}

/** `repeats` × 12 minutes of meeting excerpts and FSDD turns, with the reference turns. */
export async function longRecording(repeats = 1): Promise<LongRecording> {
  const meetings = await loadMeetings()
  const parts: Float32Array[] = []
  const truth: LabelledTurn[] = []
  let samples = 0
  for (let round = 0; round < 2; round++) {
    for (const [i, m] of meetings.entries()) {
      parts.push(m.audio)
      for (const t of m.turns)
        truth.push({ ...t, start: t.start + samples / RATE, end: t.end + samples / RATE })
      samples += m.audio.length
      const person = PEOPLE[(round * meetings.length + i) % PEOPLE.length] as string
      const turn = await take(person, round * 5 + Math.floor(i / PEOPLE.length), samples / RATE)
      parts.push(...turn.parts)
      truth.push(...turn.turns)
      samples += turn.samples
    }
  }
  const rounds = Math.max(1, Math.round(repeats))
  const audio = new Float32Array(samples * rounds)
  let at = 0
  for (let r = 0; r < rounds; r++)
    for (const p of parts) {
      audio.set(p, at)
      at += p.length
    }
  const seconds = samples / RATE
  const all = Array.from({ length: rounds }, (_, r) =>
    truth.map((t) => ({ ...t, start: t.start + r * seconds, end: t.end + r * seconds })),
  ).flat()
  return { audio, truth: all }
}
