/**
 * `npm run eval:diarization`: diarizes the ten AMI meeting excerpts and prints, per file and overall, side by side on
 * the same speech regions,
 *
 * - the system (the diarizer as shipped),
 * - "all speech is one speaker" (the system's speech, one label), and
 * - the oracle floor (the system's speech, each frame labelled with a reference speaker talking then): what any
 *   diarizer with one speaker per frame on that speech would still get wrong (overlapped speech, VAD misses and
 *   false alarms),
 *
 * each as DER (missed speech + false alarm + speaker confusion over reference speaker time; no collar, overlap scored)
 * with its parts, and the speaker count found per file against the reference's; with the count estimated and with the
 * reference count given as `numSpeakers`.
 *
 * Flags: `--reference-speech` runs the diarizer on the reference's speech instead of the VAD's (the speaker part alone;
 * "one speaker" is then the 31.3 % of issue 20); `--estimated` / `--given-count` only one of the two runs;
 * `--options '<json>'` other DiarizerOptions; `--leave-one-out` also scores the count rule with its two constants
 * fitted on the other nine files for each file (as count.ts fits them: the held-out figures); `--diagnose` prints, per
 * file and candidate count, what the count rule and the verifier's embedder see (see diagnose). `DIARIZATION_DATA`
 * points at another copy of the data. `--smoke` (bench/smoke.ts): the first two excerpts, count estimated only.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { closestPair, wholeVoices } from '../server/engine/diarization/count.ts'
import {
  type Candidates,
  type ClassicalDiarizer,
  COUNT_DEFAULTS,
  chooseCount,
  createClassicalDiarizer,
  type DiarizationError,
  type DiarizerOptions,
  diarizationError,
  type SpeakerSpan,
  type Turn,
} from '../server/engine/diarization/index.ts'
import { type LabelledTurn, parseRttm } from '../server/engine/diarization/rttm.ts'
import { cosineSimilarity } from '../server/engine/speaker/embedder.ts'
import { GMM_FEATURES, normalizeColumns, supervector, voicedCepstra } from '../server/engine/speaker/gmm.ts'
import { V2_RELEVANCE } from '../server/engine/speaker/gmm-embedder.ts'
import { projectOut } from '../server/engine/speaker/nap.ts'
import { SPEAKER_MODEL } from '../server/engine/speaker/speaker-model.ts'
import { SPEAKER_NAP } from '../server/engine/speaker/speaker-nap.ts'
import { analyzeSpeechInSteps } from '../server/engine/speaker/statistics.ts'
import { MEETINGS_DIR } from '../server/testing/meetings.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'

export interface Meeting {
  id: string
  audio: Float32Array
  /** The scored region (train.uem), seconds. */
  scored: { from: number; to: number }
  /** Reference turns, seconds, speakers named by their corpus ids (the same person across files). */
  turns: LabelledTurn[]
}

export { MEETINGS_DIR }

/** The excerpts listed in train.uem, decoded to 16 kHz mono, with their reference turns. */
export async function loadMeetings(dir = MEETINGS_DIR): Promise<Meeting[]> {
  const references = parseRttm(readFileSync(join(dir, 'train.rttm'), 'utf8'))
  const meetings: Meeting[] = []
  for (const line of readFileSync(join(dir, 'train.uem'), 'utf8').split('\n')) {
    const [id, , from, to] = line.trim().split(/\s+/)
    if (!id || from === undefined || to === undefined) continue
    const decoded = await decodeAudio(readFileSync(join(dir, `${id}.wav`)), { targetRate: 16_000 })
    const scored = { from: Number(from), to: Number(to) }
    meetings.push({ id, audio: decoded.samples, scored, turns: references.get(id) ?? [] })
  }
  return meetings
}

type Region = { start: number; end: number }

export interface FileScores {
  id: string
  /** Reference speakers in the scored region, and the system's. */
  speakers: number
  hypothesisSpeakers: number
  system: DiarizationError
  oneSpeaker: DiarizationError
  oracle: DiarizationError
}

export interface Evaluation {
  files: FileScores[]
  overall: { system: DiarizationError; oneSpeaker: DiarizationError; oracle: DiarizationError }
  /** Files whose count found is within one of the reference's. */
  countWithinOne: number
  /** Processing time over audio duration. */
  realTimeFactor: number
}

const referenceCount = (m: Meeting) => new Set(clip(m.turns, m.scored).map((t) => t.speaker)).size

function clip<T extends Region>(turns: T[], scored: { from: number; to: number }): T[] {
  return turns
    .map((t) => ({ ...t, start: Math.max(t.start, scored.from), end: Math.min(t.end, scored.to) }))
    .filter((t) => t.end > t.start)
}

/** The union of some turns as disjoint regions in time order. */
export function speechOf(turns: Region[]): Region[] {
  const regions: Region[] = []
  for (const t of [...turns].sort((a, b) => a.start - b.start)) {
    const last = regions.at(-1)
    if (last && t.start <= last.end) last.end = Math.max(last.end, t.end)
    else regions.push({ start: t.start, end: t.end })
  }
  return regions
}

const STEP = 0.01

/**
 * The regions labelled by the reference, 10 ms at a time: a speaker talking then (the one already labelled while they
 * go on, else the one with the most speech in the file); where nobody does, the last label (false alarm either way).
 */
export function oracleLabels(regions: Region[], reference: LabelledTurn[]): Turn<string>[] {
  const talk = new Map<string, number>()
  for (const t of reference) talk.set(t.speaker, (talk.get(t.speaker) ?? 0) + t.end - t.start)
  const fallback = [...talk].reduce((a, b) => (b[1] > a[1] ? b : a), ['nobody', 0])[0]
  const out: Turn<string>[] = []
  let current = fallback
  for (const region of regions) {
    for (let t = region.start; t < region.end - 1e-9; t += STEP) {
      const end = Math.min(region.end, t + STEP)
      const middle = (t + end) / 2
      const active = reference.filter((r) => r.start <= middle && r.end > middle).map((r) => r.speaker)
      if (active.length > 0 && !active.includes(current))
        current = active.reduce((a, b) => ((talk.get(b) ?? 0) > (talk.get(a) ?? 0) ? b : a))
      const last = out.at(-1)
      if (last && last.speaker === current && Math.abs(last.end - t) < 1e-9) last.end = end
      else out.push({ start: t, end, speaker: current })
    }
  }
  return out
}

function sum(errors: DiarizationError[]): DiarizationError {
  const total = (key: 'reference' | 'missed' | 'falseAlarm' | 'confusion') =>
    errors.reduce((s, e) => s + e[key], 0)
  const reference = total('reference')
  const wrong = total('missed') + total('falseAlarm') + total('confusion')
  return {
    reference,
    missed: total('missed'),
    falseAlarm: total('falseAlarm'),
    confusion: total('confusion'),
    der: wrong / reference,
  }
}

/** The system, one speaker and the oracle on the system's speech. */
function scoreFile(m: Meeting, spans: SpeakerSpan[]): FileScores {
  const regions = speechOf(spans)
  return {
    id: m.id,
    speakers: referenceCount(m),
    hypothesisSpeakers: new Set(clip(spans, m.scored).map((s) => s.speaker)).size,
    system: diarizationError(m.turns, spans, m.scored),
    oneSpeaker: diarizationError(
      m.turns,
      regions.map((r) => ({ ...r, speaker: 0 })),
      m.scored,
    ),
    oracle: diarizationError(m.turns, oracleLabels(regions, m.turns), m.scored),
  }
}

const withinOne = (f: FileScores) => Math.abs(f.hypothesisSpeakers - f.speakers) <= 1

function summarise(files: FileScores[], realTimeFactor: number): Evaluation {
  return {
    files,
    overall: {
      system: sum(files.map((f) => f.system)),
      oneSpeaker: sum(files.map((f) => f.oneSpeaker)),
      oracle: sum(files.map((f) => f.oracle)),
    },
    countWithinOne: files.filter(withinOne).length,
    realTimeFactor,
  }
}

/**
 * Diarizes each meeting in turn and scores it against its reference: the speaker count is estimated, or with
 * `givenCount` passed as `numSpeakers` from the reference (as a caller who knows it would); on the VAD's speech, or
 * with `referenceSpeech` on the reference's.
 */
export async function evaluateDiarization(
  meetings: Meeting[],
  options: DiarizerOptions = {},
  { givenCount = false, referenceSpeech = false } = {},
): Promise<Evaluation> {
  const diarizer = createClassicalDiarizer(options)
  await diarizer.diarize(new Float32Array(16_000)) // loads the VAD model outside the timing
  let seconds = 0
  let elapsed = 0
  const files: FileScores[] = []
  for (const meeting of meetings) {
    const count = givenCount ? { numSpeakers: Math.max(1, referenceCount(meeting)) } : {}
    const started = performance.now()
    const spans = referenceSpeech
      ? await diarizer.diarizeRegions(meeting.audio, speechOf(clip(meeting.turns, meeting.scored)), count)
      : await diarizer.diarize(meeting.audio, count)
    elapsed += (performance.now() - started) / 1000
    seconds += meeting.audio.length / 16_000
    files.push(scoreFile(meeting, spans))
  }
  return summarise(files, elapsed / seconds)
}

/**
 * The count rule with its constants (minimum share, same-voice cosine) chosen for each file on the other nine, as
 * count.ts fits them: among the pairs whose error there is under one speaker's, the most counts within one of the
 * reference, then the least error (ties: the middle one of the tied pairs, in grid order).
 */
export async function leaveOneOut(
  meetings: Meeting[],
  options: DiarizerOptions = {},
  { referenceSpeech = false } = {},
): Promise<{ evaluation: Evaluation; chosen: { id: string; minShare: number; sameVoice: number }[] }> {
  const diarizer: ClassicalDiarizer = createClassicalDiarizer(options)
  const maxSpeakers = options.count?.maxSpeakers ?? COUNT_DEFAULTS.maxSpeakers
  const grid: { minShare: number; sameVoice: number }[] = []
  for (const minShare of [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3])
    for (const sameVoice of [-0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01])
      grid.push({ minShare, sameVoice })
  const perFile: {
    meeting: Meeting
    candidates: Candidates | null
    errors: number[]
    scores: FileScores[]
  }[] = []
  for (const meeting of meetings) {
    const regions = referenceSpeech
      ? speechOf(clip(meeting.turns, meeting.scored))
      : await vadRegions(diarizer, meeting.audio)
    const candidates = await diarizer.candidates(meeting.audio, regions, maxSpeakers)
    const byCount = (candidates?.partitions ?? [new Int32Array(0)]).map((p) =>
      scoreFile(meeting, diarizer.spans(p)),
    )
    const scores = grid.map((rule) => {
      const k = candidates
        ? chooseCount(candidates.partitions, candidates.windows, {
            ...rule,
            maxSpeakers,
            minSpeakers: candidates.windowCount,
          })
        : 1
      return byCount[k - 1] as FileScores
    })
    perFile.push({ meeting, candidates, scores, errors: scores.map((s) => wrong(s.system)) })
  }
  const files: FileScores[] = []
  const chosen: { id: string; minShare: number; sameVoice: number }[] = []
  perFile.forEach((file, i) => {
    const others = perFile.filter((_, j) => j !== i)
    const oneSpeaker = others.reduce((s, other) => s + wrong((other.scores[0] as FileScores).oneSpeaker), 0)
    const fits = grid.map((_, g) => ({
      g,
      error: others.reduce((s, other) => s + (other.errors[g] as number), 0),
      within: others.filter((other) => withinOne(other.scores[g] as FileScores)).length,
    }))
    const allowed = fits.filter((fit) => fit.error < oneSpeaker)
    const pool = allowed.length > 0 ? allowed : fits
    const most = Math.max(...pool.map((fit) => fit.within))
    const least = Math.min(...pool.filter((fit) => fit.within === most).map((fit) => fit.error))
    const tied = pool.filter((fit) => fit.within === most && fit.error <= least + 1e-9).map((fit) => fit.g)
    const g = tied[Math.floor(tied.length / 2)] as number
    chosen.push({ id: file.meeting.id, ...(grid[g] as { minShare: number; sameVoice: number }) })
    files.push(file.scores[g] as FileScores)
  })
  return { evaluation: summarise(files, Number.NaN), chosen }
}

/**
 * Where count and partition fail, per file: each reference speaker's time, then for each candidate count the DER and
 * confusion of that partition, the smallest speaker's share, and two whole-voice comparisons of its closest pair of
 * speakers — the count rule's (cosine of mean window statistics) and the verifier's GMM–UBM supervectors with nuisance
 * projection (gmm-ubm-v2, each speaker's voiced frames, normalised over the recording's speech so that the channel
 * is shared). A comparison useful for the count scores splits of one voice high and real second voices low.
 */
export async function diagnose(meetings: Meeting[], options: DiarizerOptions = {}): Promise<void> {
  const diarizer = createClassicalDiarizer(options)
  const maxSpeakers = options.count?.maxSpeakers ?? COUNT_DEFAULTS.maxSpeakers
  for (const m of meetings) {
    const talk = new Map<string, number>()
    for (const t of clip(m.turns, m.scored)) talk.set(t.speaker, (talk.get(t.speaker) ?? 0) + t.end - t.start)
    const regions = await vadRegions(diarizer, m.audio)
    const found = await diarizer.candidates(m.audio, regions, maxSpeakers)
    console.log(
      `\n${m.id}  reference: ${[...talk].map(([s, x]) => `${s} ${x.toFixed(1)} s`).join(', ')}` +
        `  window count ${found?.windowCount ?? 0}`,
    )
    if (!found) continue
    const voiced = await voicedSupervectorInput(m.audio, found.partitions[0] as Int32Array)
    found.partitions.forEach((partition, k) => {
      const e = diarizationError(m.turns, diarizer.spans(partition), m.scored)
      const voices = wholeVoices(partition, found.windows).filter((v) => v.weight > 0)
      const total = voices.reduce((s, v) => s + v.weight, 0)
      const share = Math.min(...voices.map((v) => v.weight)) / total
      const gmm = gmmClosestPair(voiced, partition)
      console.log(
        `  ${k + 1} speakers: DER ${(100 * e.der).toFixed(1)} % (conf. ${((100 * e.confusion) / e.reference).toFixed(1)})` +
          (voices.length > 1
            ? `, least share ${share.toFixed(2)}, statistics cosine ${closestPair(voices).toFixed(2)}, GMM–UBM cosine ${gmm.toFixed(2)}`
            : ''),
      )
    })
  }
}

/** The voiced frames inside speech (labels ≥ 0) with their GMM features, normalised over them. */
async function voicedSupervectorInput(audio: Float32Array, speech: Int32Array) {
  const track = await analyzeSpeechInSteps(audio)
  const all = voicedCepstra(track, 2)
  const frames: number[] = []
  for (let f = 0; f < track.features.count; f++) if (track.voiced[f]) frames.push(f)
  const kept = frames.flatMap((f, i) => ((speech[f] ?? -1) >= 0 ? [{ f, i }] : []))
  const values = new Float64Array(kept.length * GMM_FEATURES)
  if (all)
    kept.forEach(({ i }, n) => {
      values.set(all.values.subarray(i * GMM_FEATURES, (i + 1) * GMM_FEATURES), n * GMM_FEATURES)
    })
  normalizeColumns(values, kept.length)
  return { frames: kept.map(({ f }) => f), values }
}

function gmmClosestPair(voiced: { frames: number[]; values: Float64Array }, partition: Int32Array): number {
  const speakers = Math.max(...voiced.frames.map((f) => partition[f] as number)) + 1
  const embeddings: Float32Array[] = []
  for (let s = 0; s < speakers; s++) {
    const rows = voiced.frames.flatMap((f, n) => (partition[f] === s ? [n] : []))
    if (rows.length === 0) continue
    const values = new Float64Array(rows.length * GMM_FEATURES)
    rows.forEach((n, r) => {
      values.set(voiced.values.subarray(n * GMM_FEATURES, (n + 1) * GMM_FEATURES), r * GMM_FEATURES)
    })
    const sv = supervector(SPEAKER_MODEL, { values, count: rows.length }, V2_RELEVANCE)
    embeddings.push(projectOut(sv, SPEAKER_NAP))
  }
  let closest = -1
  for (let a = 0; a < embeddings.length; a++)
    for (let b = a + 1; b < embeddings.length; b++)
      closest = Math.max(
        closest,
        cosineSimilarity(embeddings[a] as Float32Array, embeddings[b] as Float32Array),
      )
  return closest
}

const wrong = (e: DiarizationError) => e.missed + e.falseAlarm + e.confusion

/** The VAD's speech as the diarizer finds it (the spans of a one-speaker run are exactly its regions). */
async function vadRegions(diarizer: ClassicalDiarizer, audio: Float32Array): Promise<Region[]> {
  return speechOf(await diarizer.diarize(audio, { numSpeakers: 1 }))
}

function print(title: string, { files, overall, countWithinOne, realTimeFactor }: Evaluation) {
  const pct = (x: number, of: number) => ((100 * x) / of).toFixed(1)
  const cell = (e: DiarizationError) =>
    `${`${pct(wrong(e), e.reference)}%`.padStart(6)} (${pct(e.missed, e.reference)}/${pct(e.falseAlarm, e.reference)}/${pct(e.confusion, e.reference)})`.padEnd(
      24,
    )
  console.log(`\n${title}`)
  console.log(
    `${'file'.padEnd(6)} ${'ref → found'.padEnd(11)} ${'ref(s)'.padStart(6)}  ${'system'.padEnd(24)} ${'one speaker'.padEnd(24)} oracle floor`,
  )
  console.log(`${''.padEnd(26)}  DER (miss/FA/conf) %    DER (miss/FA/conf) %    DER (miss/FA/conf) %`)
  for (const f of files) {
    console.log(
      `${f.id.padEnd(6)} ${`${f.speakers} → ${f.hypothesisSpeakers}`.padEnd(11)} ${f.system.reference.toFixed(1).padStart(6)}  ` +
        `${cell(f.system)} ${cell(f.oneSpeaker)} ${cell(f.oracle)}`,
    )
  }
  console.log(
    `${'all'.padEnd(6)} ${`${countWithinOne}/${files.length} ±1`.padEnd(11)} ${overall.system.reference.toFixed(1).padStart(6)}  ` +
      `${cell(overall.system)} ${cell(overall.oneSpeaker)} ${cell(overall.oracle)}`,
  )
  const below = 100 * (overall.oneSpeaker.der - overall.system.der)
  console.log(
    `system ${below >= 0 ? `${below.toFixed(1)} points below` : `${(-below).toFixed(1)} points above`} one speaker; ` +
      `count within one of the reference for ${countWithinOne} of ${files.length} files` +
      (Number.isFinite(realTimeFactor) ? `; real-time factor ${realTimeFactor.toFixed(4)}` : ''),
  )
}

async function main() {
  const at = process.argv.indexOf('--options')
  const options: DiarizerOptions = at > 0 ? JSON.parse(process.argv[at + 1] ?? '{}') : {}
  const referenceSpeech = process.argv.includes('--reference-speech')
  const onlyGiven = process.argv.includes('--given-count')
  const onlyEstimated = SMOKE || process.argv.includes('--estimated')
  announceSmoke('eval:diarization')
  const meetings = (await loadMeetings()).slice(0, count(Number.POSITIVE_INFINITY, 2))
  if (process.argv.includes('--diagnose')) return diagnose(meetings, options)
  const regions = referenceSpeech ? "the reference's speech" : "the system's speech (VAD)"
  if (!onlyGiven)
    print(
      `speaker count estimated — on ${regions}`,
      await evaluateDiarization(meetings, options, { referenceSpeech }),
    )
  if (!onlyEstimated)
    print(
      `speaker count given (numSpeakers = reference count) — on ${regions}`,
      await evaluateDiarization(meetings, options, { givenCount: true, referenceSpeech }),
    )
  if (process.argv.includes('--leave-one-out')) {
    const { evaluation, chosen } = await leaveOneOut(meetings, options, { referenceSpeech })
    print(`count rule fitted leave-one-file-out (minShare, sameVoice per file) — on ${regions}`, evaluation)
    console.log(chosen.map((c) => `${c.id} ${c.minShare}/${c.sameVoice}`).join(', '))
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
