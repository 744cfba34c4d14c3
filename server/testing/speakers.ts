import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeAudio } from '../engine/codecs/decode.ts'
import { parseRttm } from '../engine/diarization/rttm.ts'
import { floatToPcm16Wav } from '../wav.ts'
import { MEETINGS_DIR, meetingFile } from './meetings.ts'

/**
 * Real people for the consent and verification tests: the FSDD spoken digits in `shared/data/speakers` (`SPEAKERS_DATA`
 * when set) and one-person stretches of the AMI meetings (testing/meetings.ts). Read at run time, never committed.
 */
const CANDIDATES = [
  process.env.SPEAKERS_DATA,
  new URL('../../../shared/data/speakers/', import.meta.url).pathname,
  '/work/shared/data/speakers',
].filter((dir): dir is string => Boolean(dir))

export const SPEAKERS_DIR =
  CANDIDATES.find((dir) => existsSync(join(dir, '0_jackson_0.wav'))) ?? (CANDIDATES[0] as string)
export const realSpeechAvailable = (): boolean =>
  existsSync(join(SPEAKERS_DIR, '0_jackson_0.wav')) && existsSync(join(MEETINGS_DIR, 'train.rttm'))

const RATE = 16_000

/** 16 kHz clips one after another, with `gapSeconds` of silence before, between and after them. */
export function joinClips(parts: Float32Array[], gapSeconds: number): Float32Array {
  const gap = Math.round(gapSeconds * RATE)
  const out = new Float32Array(parts.reduce((n, p) => n + p.length + gap, gap))
  let offset = gap
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length + gap
  }
  return out
}

/** Every digit of the given takes of one FSDD speaker, joined with short pauses, at 16 kHz. */
export async function spokenDigits(speaker: string, takes: number[]): Promise<Float32Array> {
  const parts: Float32Array[] = []
  for (const take of takes) {
    for (let digit = 0; digit < 10; digit++) {
      const bytes = readFileSync(join(SPEAKERS_DIR, `${digit}_${speaker}_${take}.wav`))
      parts.push((await decodeAudio(bytes, { targetRate: RATE })).samples)
    }
  }
  return joinClips(parts, 0.15)
}

/**
 * The stretches of `file` (such as `trn08`) where `speaker` alone talks, longest first, joined with short pauses
 * until they last `seconds`.
 */
export async function meetingSpeaker(file: string, speaker: string, seconds: number): Promise<Float32Array> {
  const audio = (await decodeAudio(readFileSync(meetingFile(`${file}.wav`)), { targetRate: RATE })).samples
  const turns = parseRttm(readFileSync(join(MEETINGS_DIR, 'train.rttm'), 'utf8')).get(file) ?? []
  const edges = [...new Set(turns.flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b)
  const alone: { start: number; end: number }[] = []
  for (let i = 0; i + 1 < edges.length; i++) {
    const [start, end] = [edges[i] as number, edges[i + 1] as number]
    const active = turns.filter((t) => t.start <= (start + end) / 2 && t.end > (start + end) / 2)
    if (active.length !== 1 || active[0]?.speaker !== speaker) continue
    const last = alone.at(-1)
    if (last && last.end === start) last.end = end
    else alone.push({ start, end })
  }
  const parts: Float32Array[] = []
  let total = 0
  for (const { start, end } of alone.sort((a, b) => b.end - b.start - (a.end - a.start))) {
    if (total >= seconds) break
    parts.push(audio.subarray(Math.round(start * RATE), Math.round(end * RATE)))
    total += end - start
  }
  return joinClips(parts, 0.15)
}

/**
 * `first`, then `second` starting `seconds` before `first` ends, both at their own level (two people talking at
 * once there); with where the overlap lies, in seconds.
 */
export function talkOver(
  first: Float32Array,
  second: Float32Array,
  seconds: number,
): { audio: Float32Array; overlap: { from: number; to: number } } {
  const start = Math.max(0, first.length - Math.round(seconds * RATE))
  const audio = new Float32Array(Math.max(first.length, start + second.length))
  audio.set(first)
  for (let i = 0; i < second.length; i++)
    audio[start + i] = (audio[start + i] as number) + (second[i] as number)
  return { audio, overlap: { from: start / RATE, to: first.length / RATE } }
}

/** 16-bit mono WAV of 16 kHz float samples. */
export function wav16k(samples: Float32Array): Buffer {
  return floatToPcm16Wav(samples, RATE)
}
