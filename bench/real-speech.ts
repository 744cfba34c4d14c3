/**
 * Real-speech material for the consent screen and speaker verification (bench/voices.ts, bench/fit-speaker-model.ts):
 * one-person clips, two-person clips and verification trials built from `shared/data/speakers` (FSDD: six people,
 * 8 kHz spoken digits, each recorded with their own set-up) and `shared/data/diarization` (AMI meetings, 16 kHz,
 * one room per meeting). Nothing here is audio the repository ships: it is read from the shared data at run time.
 *
 * Speakers are split into two folds that share no speaker and no room, so that a model or threshold fitted on one
 * fold is measured on the other (held-out figures). A "room" is an AMI meeting (excerpts that share a speaker are
 * one meeting) or one FSDD speaker's own recording set-up.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { concat } from '../core/concat.ts'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { clipFeatures, supervector, type Ubm } from '../server/engine/speaker/gmm.ts'
import {
  MIN_EMBEDDING_FRAMES,
  V2_NAP_DIRECTIONS,
  V2_RELEVANCE,
} from '../server/engine/speaker/gmm-embedder.ts'
import { fitNap } from '../server/engine/speaker/nap.ts'
import { analyzeSpeech } from '../server/engine/speaker/statistics.ts'
import { joinClips, SPEAKERS_DIR } from '../server/testing/speakers.ts'
import { loadMeetings, type Meeting } from './eval-diarization.ts'
import { singleSpeakerSegments } from './speaker-eer.ts'

export { SPEAKERS_DIR }

const RATE = 16_000
export interface Clip {
  audio: Float32Array
  speaker: string
  room: string
  /** 0 or 1: the fold of its speaker and room. */
  fold: number
  corpus: 'fsdd' | 'ami'
  /** Which recordings it was cut from: clips of one speaker sharing a source are not a verification pair. */
  source: string
}

/**
 * The folds: FSDD speakers alternate; AMI meetings are split so that each fold has meetings with several
 * people talking (same-room impostors) and women and men.
 */
const FSDD_FOLD: Record<string, number> = {
  george: 0,
  lucas: 0,
  theo: 0,
  jackson: 1,
  nicolas: 1,
  yweweler: 1,
}
const AMI_FOLD_OF_ROOM: Record<string, number> = {
  'ami:trn00': 0,
  'ami:trn06': 0,
  'ami:trn04': 1,
  'ami:trn05': 1,
  'ami:trn07': 1,
}

export interface Take {
  speaker: string
  digit: number
  take: number
  audio: Float32Array
}

export async function loadTakes(dir = SPEAKERS_DIR): Promise<Take[]> {
  const takes: Take[] = []
  for (const name of readdirSync(dir).sort()) {
    const m = /^(\d)_([a-z]+)_(\d+)\.wav$/.exec(name)
    if (!m) continue
    const decoded = await decodeAudio(readFileSync(join(dir, name)), { targetRate: RATE })
    takes.push({ speaker: m[2] as string, digit: Number(m[1]), take: Number(m[3]), audio: decoded.samples })
  }
  return takes
}

/** Deterministic shuffle (a fixed linear congruential generator), so every run measures the same clips. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items]
  let state = seed >>> 0
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j] as T, out[i] as T]
  }
  return out
}

/**
 * One-person FSDD clips of about `seconds`: takes of one speaker joined with short pauses. Takes 0–4 and 5–9 are
 * kept apart (`source` `a`/`b`) so that a verification pair never shares a recording.
 */
export function fsddClips(takes: Take[], seconds: number, seed = 1): Clip[] {
  const clips: Clip[] = []
  const speakers = [...new Set(takes.map((t) => t.speaker))].sort()
  for (const speaker of speakers) {
    for (const half of ['a', 'b'] as const) {
      const pool = shuffled(
        takes.filter((t) => t.speaker === speaker && (half === 'a' ? t.take < 5 : t.take >= 5)),
        seed + speaker.length,
      )
      let parts: Float32Array[] = []
      let length = 0
      let index = 0
      for (const take of pool) {
        parts.push(take.audio)
        length += take.audio.length / RATE + 0.15
        if (length >= seconds) {
          clips.push({
            audio: joinClips(parts, 0.15),
            speaker: `fsdd:${speaker}`,
            room: `fsdd:${speaker}`,
            fold: FSDD_FOLD[speaker] ?? 0,
            corpus: 'fsdd',
            source: `${half}${index++}`,
          })
          parts = []
          length = 0
        }
      }
    }
  }
  return clips
}

/** The room of each AMI excerpt: excerpts sharing a speaker are one meeting, named after its first excerpt. */
export function amiRooms(meetings: Meeting[]): Map<string, string> {
  const room = new Map(meetings.map((m) => [m.id, m.id]))
  const find = (id: string): string => {
    const parent = room.get(id) as string
    return parent === id ? id : find(parent)
  }
  for (const a of meetings) {
    for (const b of meetings) {
      if (a.id >= b.id) continue
      const shared = a.turns.some((t) => b.turns.some((u) => u.speaker === t.speaker))
      if (!shared) continue
      const [ra, rb] = [find(a.id), find(b.id)].sort()
      room.set(rb as string, ra as string)
    }
  }
  return new Map(meetings.map((m) => [m.id, `ami:${find(m.id)}`]))
}

/**
 * One-person AMI clips of `min`…`max` seconds: stretches where exactly one reference speaker talks, the longer ones
 * cut, the shorter ones (from 0.5 s) joined in order with short pauses, one speaker and excerpt at a time.
 */
export function amiClips(meetings: Meeting[], min: number, max: number): Clip[] {
  return joinedMeetingClips(meetings, {
    shortest: 0.5,
    longest: max,
    enough: min,
    measure: (_, s) => s.end - s.start,
  })
}

/**
 * One speaker's one-person stretches of one excerpt (`shortest`…`longest` s, longer ones cut first), joined in order
 * with short pauses until `measure` of the parts adds up to `enough`, each stretch used once.
 */
export function joinedMeetingClips(
  meetings: Meeting[],
  opts: {
    shortest: number
    longest: number
    enough: number
    measure: (part: Float32Array, stretch: { start: number; end: number }) => number
  },
): Clip[] {
  const rooms = amiRooms(meetings)
  const clips: Clip[] = []
  for (const m of meetings) {
    const room = rooms.get(m.id) as string
    const pending = new Map<string, { parts: Float32Array[]; amount: number; start: number }>()
    for (const s of singleSpeakerSegments(m, opts.shortest, opts.longest)) {
      const part = m.audio.subarray(Math.round(s.start * RATE), Math.round(s.end * RATE))
      const open = pending.get(s.speaker) ?? { parts: [], amount: 0, start: s.start }
      open.parts.push(part)
      open.amount += opts.measure(part, s)
      pending.set(s.speaker, open)
      if (open.amount < opts.enough) continue
      clips.push({
        audio: open.parts.length === 1 ? part : joinClips(open.parts, 0.15),
        speaker: `ami:${s.speaker}`,
        room,
        fold: AMI_FOLD_OF_ROOM[room] ?? 0,
        corpus: 'ami',
        source: `${m.id}@${open.start.toFixed(2)}`,
      })
      pending.delete(s.speaker)
    }
  }
  return clips
}

export interface RealSpeech {
  meetings: Meeting[]
  /** One-person clips of 2–6 s, as consent recordings and voice samples would be. */
  single: Clip[]
  /** Two people one after the other in one clip, at least 1.5 s each. */
  pairs: { audio: Float32Array; sameRoom: boolean; fold: number; corpus: 'fsdd' | 'ami' }[]
}

export async function loadRealSpeech(): Promise<RealSpeech> {
  const meetings = await loadMeetings()
  const takes = await loadTakes()
  const single = [...fsddClips(takes, 2.5), ...fsddClips(takes, 5, 7), ...amiClips(meetings, 2, 6)]
  const pairs: RealSpeech['pairs'] = []
  // FSDD: two people's clips back to back (different people, different set-ups).
  const fsdd = fsddClips(takes, 2, 11)
  for (let i = 0; i < fsdd.length; i++) {
    const a = fsdd[i] as Clip
    const b = fsdd.find((c, j) => j > i + 3 && c.speaker !== a.speaker)
    if (!b) continue
    pairs.push({
      audio: joinClips([a.audio, b.audio], 0.3),
      sameRoom: false,
      fold: a.fold,
      corpus: 'fsdd',
    })
  }
  // AMI: two people of the same meeting back to back: the same room and microphone, only the voice differs.
  const ami = amiClips(meetings, 1.5, 4)
  for (let i = 0; i < ami.length; i++) {
    const a = ami[i] as Clip
    const b = ami.find((c, j) => j > i && c.room === a.room && c.speaker !== a.speaker)
    if (!b) continue
    pairs.push({
      audio: joinClips([a.audio, b.audio], 0.3),
      sameRoom: true,
      fold: a.fold,
      corpus: 'ami',
    })
  }
  return { meetings, single, pairs }
}

export interface Pair {
  audio: Float32Array
  /** Both people recorded in one room (AMI), or each with their own set-up (FSDD). */
  sameRoom: boolean
  fold: number
  corpus: 'fsdd' | 'ami'
  /** About how long each person speaks, in seconds. */
  seconds: number
}

/**
 * Two people one after the other in one clip, each speaking about `seconds` (a consent phrase takes four or five):
 * FSDD people of the same fold with their different set-ups, and AMI people of the same meeting (same room and
 * microphone, only the voice differs). Each one-person clip is used at most twice.
 */
export function twoPersonClips(meetings: Meeting[], takes: Take[], seconds: number): Pair[] {
  const pairs: Pair[] = []
  const fsdd = fsddClips(takes, seconds, 11)
  for (let i = 0; i < fsdd.length; i++) {
    const a = fsdd[i] as Clip
    const b = fsdd.find((c, j) => j > i + 3 && c.speaker !== a.speaker && c.fold === a.fold)
    if (!b) continue
    pairs.push({
      audio: joinClips([a.audio, b.audio], 0.3),
      sameRoom: false,
      fold: a.fold,
      corpus: 'fsdd',
      seconds,
    })
  }
  const ami = amiClips(meetings, seconds, seconds + 1.5)
  for (let i = 0; i < ami.length; i++) {
    const a = ami[i] as Clip
    const b = ami.find((c, j) => j > i && c.room === a.room && c.speaker !== a.speaker)
    if (!b) continue
    pairs.push({
      audio: joinClips([a.audio, b.audio], 0.3),
      sameRoom: true,
      fold: a.fold,
      corpus: 'ami',
      seconds,
    })
  }
  return pairs
}

/**
 * Clips built another way, to check the screen off the set its thresholds were chosen on: one FSDD take (the ten
 * digits a person said in one sitting, 5–7 s) as a one-person clip, and two people's takes of the same number one
 * after the other, in both orders, as a two-person clip. Only speakers of `fold`.
 */
export function wholeTakeClips(takes: Take[], fold: number): { one: Clip[]; two: Pair[] } {
  const speakers = Object.keys(FSDD_FOLD)
    .filter((s) => FSDD_FOLD[s] === fold)
    .sort()
  const take = (speaker: string, n: number) =>
    joinClips(
      takes
        .filter((t) => t.speaker === speaker && t.take === n)
        .sort((a, b) => a.digit - b.digit)
        .map((t) => t.audio),
      0.15,
    )
  const numbers = [...new Set(takes.map((t) => t.take))].sort((a, b) => a - b)
  const one = numbers.flatMap((n) =>
    speakers.map((speaker) => ({
      audio: take(speaker, n),
      speaker: `fsdd:${speaker}`,
      room: `fsdd:${speaker}`,
      fold,
      corpus: 'fsdd' as const,
      source: `take${n}`,
    })),
  )
  const two = numbers.flatMap((n) =>
    speakers.flatMap((a) =>
      speakers
        .filter((b) => b !== a)
        .map((b) => ({
          audio: joinClips([take(a, n), take(b, n)], 0.3),
          sameRoom: false,
          fold,
          corpus: 'fsdd' as const,
          seconds: 6,
        })),
    ),
  )
  return { one, two }
}

export interface Trial {
  enrol: number
  test: number
  same: boolean
  sameRoom: boolean
  fold: number
}

/**
 * Verification trials within each fold over `clips`: the same person from different recordings (owner), different
 * people in one room (same-room impostor), different people from different rooms (different-room impostor).
 */
export function verificationTrials(clips: Clip[]): Trial[] {
  const trials: Trial[] = []
  for (let i = 0; i < clips.length; i++) {
    for (let j = i + 1; j < clips.length; j++) {
      const a = clips[i] as Clip
      const b = clips[j] as Clip
      if (a.fold !== b.fold) continue
      const same = a.speaker === b.speaker
      if (same && a.source.slice(0, 1) === b.source.slice(0, 1) && a.corpus === 'fsdd') continue
      trials.push({ enrol: i, test: j, same, sameRoom: a.room === b.room, fold: a.fold })
    }
  }
  return trials
}

/** The whole AMI excerpts of one fold. */
export function amiAudioOfFold(meetings: Meeting[], fold: number): Float32Array[] {
  const rooms = amiRooms(meetings)
  return meetings
    .filter((m) => (AMI_FOLD_OF_ROOM[rooms.get(m.id) as string] ?? 0) === fold)
    .map((m) => m.audio)
}

/**
 * Background-model training frames of one fold: its FSDD speakers' takes (joined into 10 s clips) and its whole AMI
 * meetings, each normalised as the embedder normalises a clip.
 */
export function trainingFrames(meetings: Meeting[], takes: Take[], fold: number): Float64Array {
  const audio = [
    ...fsddClips(takes, 10, 5)
      .filter((c) => c.fold === fold)
      .map((c) => c.audio),
    ...amiAudioOfFold(meetings, fold),
  ]
  const parts = audio.flatMap((a) => clipFeatures(analyzeSpeech(a), 10)?.values ?? [])
  return concat(parts, Float64Array)
}

/**
 * One-person clips of one fold for fitting the nuisance projection: several recordings per person, of the lengths
 * consents and samples have (FSDD takes joined into 3 s clips three ways; AMI stretches of 1–3, 2.5–5 and 4–8 s).
 * Cut independently of the verification trials' clips, and only from the fold the model is fitted on.
 */
export function napClips(meetings: Meeting[], takes: Take[], fold: number): Clip[] {
  return [
    ...[21, 22, 23].flatMap((seed) => fsddClips(takes, 3, seed)),
    ...amiClips(meetings, 1, 3),
    ...amiClips(meetings, 2.5, 5),
    ...amiClips(meetings, 4, 8),
  ].filter((c) => c.fold === fold)
}

/** The v2 embedder's nuisance directions for `ubm`, fitted on one fold's `napClips`. */
export function fitNapOnFold(ubm: Ubm, meetings: Meeting[], takes: Take[], fold: number): Float32Array[] {
  const used = napClips(meetings, takes, fold).flatMap((c) => {
    const features = clipFeatures(analyzeSpeech(c.audio), MIN_EMBEDDING_FRAMES)
    return features ? [{ speaker: c.speaker, vector: supervector(ubm, features, V2_RELEVANCE) }] : []
  })
  return fitNap(
    used.map((u) => u.vector),
    used.map((u) => u.speaker),
    V2_NAP_DIRECTIONS,
  )
}
