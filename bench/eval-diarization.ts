/**
 * `npm run eval:diarization`: diarizes the ten AMI meeting excerpts and prints, per file and overall, on the same
 * 16.9 ms frames with overlap scored and no collar (der.ts),
 *
 * - the system: the diarizer as shipped (segmented.ts), with the speaker count estimated, then given,
 * - one speaker over the *reference* speech: the best any diarizer with one label for everybody can do,
 * - oracle linking: the system's own windows and local speakers, each local speaker linked to the reference speaker
 *   it overlaps most: what better linking alone could still gain,
 *
 * each as DER (missed speech / false alarm / confusion, % of reference speaker time), with the count found against the
 * reference's. Flags: `--leave-one-out` chooses the settings in GRID for each file on the other nine (as a user's
 * recording is never seen when settings are chosen) and prints the held-out figures; `--options '<json>'` other
 * SegmentationDiarizerOptions; `--smoke` (bench/smoke.ts) the first two excerpts only. The retired classical
 * diarizer's figures are kept in docs/diarization.md (history). `DIARIZATION_DATA` points at another copy of the data.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { type DiarizationError, diarizationError, type Turn } from '../server/engine/diarization/der.ts'
import { frameMiddle } from '../server/engine/diarization/local-speakers.ts'
import { type LabelledTurn, parseRttm } from '../server/engine/diarization/rttm.ts'
import {
  createSegmentationDiarizer,
  type LocalAnalysis,
  SEGMENTATION_DEFAULTS,
  type SegmentationDiarizerOptions,
} from '../server/engine/diarization/segmented.ts'
import { node } from '../server/engine/diarization/stitch.ts'
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

const clip = <T extends Region>(turns: T[], scored: { from: number; to: number }): T[] =>
  turns
    .map((t) => ({ ...t, start: Math.max(t.start, scored.from), end: Math.min(t.end, scored.to) }))
    .filter((t) => t.end > t.start)

const speakersIn = (turns: Turn[], m: Meeting) => new Set(clip(turns, m.scored).map((t) => t.speaker)).size

export interface FileScore {
  id: string
  reference: number
  found: number
  error: DiarizationError
}

function score(m: Meeting, spans: Turn[]): FileScore {
  return {
    id: m.id,
    reference: speakersIn(m.turns, m),
    found: speakersIn(spans, m),
    error: diarizationError(m.turns, spans, m.scored),
  }
}

/**
 * Each window's local speakers linked one-to-one to the reference speakers active in most of their frames, the
 * largest overlaps first (−1 where none is left).
 */
export function oracleLabels(m: Meeting, analysis: LocalAnalysis): Int32Array {
  const { local } = analysis
  const k = local.segmenter.speakers
  const names = [...new Set(m.turns.map((t) => t.speaker))]
  const labels = new Int32Array(local.activity.length * k).fill(-1)
  local.activity.forEach((activity, w) => {
    const votes: { s: number; r: number; v: number }[] = []
    for (let s = 0; s < k; s++) {
      const counts = new Float64Array(names.length)
      for (let f = 0; f < local.segmenter.frames; f++) {
        if (!activity[f * k + s]) continue
        const t = frameMiddle(local.segmenter, (local.starts[w] as number) + f)
        for (const r of m.turns) {
          const i = names.indexOf(r.speaker)
          if (r.start <= t && r.end > t) counts[i] = (counts[i] as number) + 1
        }
      }
      counts.forEach((v, r) => {
        if (v > 0) votes.push({ s, r, v })
      })
    }
    const taken = new Set<number>()
    for (const { s, r } of votes.sort((a, b) => b.v - a.v)) {
      if (taken.has(r) || (labels[node(local, w, s)] as number) >= 0) continue
      labels[node(local, w, s)] = r
      taken.add(r)
    }
  })
  return labels
}

export function total(errors: DiarizationError[]): DiarizationError {
  const sum = (key: 'reference' | 'missed' | 'falseAlarm' | 'confusion') =>
    errors.reduce((s, e) => s + e[key], 0)
  const reference = sum('reference')
  return {
    reference,
    missed: sum('missed'),
    falseAlarm: sum('falseAlarm'),
    confusion: sum('confusion'),
    der: (sum('missed') + sum('falseAlarm') + sum('confusion')) / reference,
  }
}

export interface Columns {
  [column: string]: FileScore[]
}

/** The system with the count estimated and given, one speaker over the reference's speech, and oracle linking. */
export async function evaluate(
  meetings: Meeting[],
  options: SegmentationDiarizerOptions = {},
): Promise<{ columns: Columns; realTimeFactor: number }> {
  const diarizer = createSegmentationDiarizer(options)
  await diarizer.diarize(new Float32Array(16_000)) // loads both models outside the timing
  const columns: Columns = { system: [], 'count given': [], 'one speaker (ref.)': [], 'oracle linking': [] }
  let elapsed = 0
  let seconds = 0
  for (const m of meetings) {
    const duration = m.audio.length / 16_000
    const started = performance.now()
    const spans = await diarizer.diarize(m.audio)
    elapsed += (performance.now() - started) / 1000
    seconds += duration
    columns.system?.push(score(m, spans))
    const given = await diarizer.diarize(m.audio, { numSpeakers: Math.max(1, speakersIn(m.turns, m)) })
    columns['count given']?.push(score(m, given))
    const oneSpeaker = speechOf(clip(m.turns, m.scored)).map((r) => ({ ...r, speaker: 0 }))
    columns['one speaker (ref.)']?.push(score(m, oneSpeaker))
    const analysis = await diarizer.analyze(m.audio)
    columns['oracle linking']?.push(score(m, diarizer.spansOf(analysis, oracleLabels(m, analysis), duration)))
  }
  return { columns, realTimeFactor: elapsed / seconds }
}

/** Settings the held-out evaluation chooses among (each file's on the other nine). */
const GRID: SegmentationDiarizerOptions[] = []
for (const bridgeSeconds of [0, 0.25, 0.5])
  for (const padSeconds of [0, 0.1, 0.2])
    GRID.push({ bridgeSeconds, vad: { ...SEGMENTATION_DEFAULTS.vad, padSeconds } })

/** Each file scored with the grid's settings that err least on the other files. */
export async function leaveOneOut(
  meetings: Meeting[],
  options: SegmentationDiarizerOptions = {},
): Promise<{ scores: FileScore[]; chosen: SegmentationDiarizerOptions[] }> {
  const byGrid: FileScore[][] = []
  for (const settings of GRID) {
    const diarizer = createSegmentationDiarizer({ ...options, ...settings })
    const row: FileScore[] = []
    for (const m of meetings) row.push(score(m, await diarizer.diarize(m.audio)))
    byGrid.push(row)
  }
  const wrong = (e: DiarizationError) => e.missed + e.falseAlarm + e.confusion
  const scores: FileScore[] = []
  const chosen: SegmentationDiarizerOptions[] = []
  meetings.forEach((_, i) => {
    let best = 0
    let least = Number.POSITIVE_INFINITY
    byGrid.forEach((row, g) => {
      const error = row.reduce((s, f, j) => (j === i ? s : s + wrong(f.error)), 0)
      if (error < least - 1e-9) {
        least = error
        best = g
      }
    })
    scores.push((byGrid[best] as FileScore[])[i] as FileScore)
    chosen.push(GRID[best] as SegmentationDiarizerOptions)
  })
  return { scores, chosen }
}

const pct = (x: number, of: number) => ((100 * x) / of).toFixed(1)
const cell = (e: DiarizationError) =>
  `${pct(e.missed + e.falseAlarm + e.confusion, e.reference).padStart(5)} (${pct(e.missed, e.reference)}/${pct(e.falseAlarm, e.reference)}/${pct(e.confusion, e.reference)})`.padEnd(
    22,
  )

export function printColumns(columns: Columns): void {
  const names = Object.keys(columns)
  const first = columns[names[0] as string] as FileScore[]
  console.log(
    `${'file'.padEnd(6)} ${'ref(s)'.padStart(6)}  ${names.map((n) => `${n} (count)`.padEnd(30)).join('')}`,
  )
  console.log(`${''.padEnd(14)}${names.map(() => 'DER (miss/FA/conf) %'.padEnd(30)).join('')}`)
  first.forEach((f, i) => {
    const cells = names.map((n) => {
      const s = (columns[n] as FileScore[])[i] as FileScore
      return `${cell(s.error)}${`${s.reference}→${s.found}`.padEnd(8)}`
    })
    console.log(`${f.id.padEnd(6)} ${f.error.reference.toFixed(1).padStart(6)}  ${cells.join('')}`)
  })
  const totals = names.map((n) => {
    const scores = columns[n] as FileScore[]
    const within = scores.filter((s) => Math.abs(s.found - s.reference) <= 1).length
    return `${cell(total(scores.map((s) => s.error)))}${`${within}/${scores.length}±1`.padEnd(8)}`
  })
  const reference = total(first.map((f) => f.error)).reference
  console.log(`${'all'.padEnd(6)} ${reference.toFixed(1).padStart(6)}  ${totals.join('')}`)
}

async function main() {
  const at = process.argv.indexOf('--options')
  const options: SegmentationDiarizerOptions = at > 0 ? JSON.parse(process.argv[at + 1] ?? '{}') : {}
  announceSmoke('eval:diarization')
  const meetings = (await loadMeetings()).slice(0, count(Number.POSITIVE_INFINITY, 2))
  const { columns, realTimeFactor } = await evaluate(meetings, options)
  console.log('\nten AMI excerpts: overlap scored, no collar; count found against the reference (ref→found)')
  printColumns(columns)
  console.log(`real-time factor of the system (count estimated): ${realTimeFactor.toFixed(3)}`)
  if (process.argv.includes('--leave-one-out') && !SMOKE) {
    const { scores, chosen } = await leaveOneOut(meetings, options)
    console.log(
      '\nsettings chosen for each file on the other nine (bridgeSeconds, VAD padSeconds), held-out scores:',
    )
    printColumns({ 'held out': scores, system: columns.system as FileScore[] })
    console.log(chosen.map((c, i) => `${meetings[i]?.id} ${c.bridgeSeconds}/${c.vad?.padSeconds}`).join(', '))
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
