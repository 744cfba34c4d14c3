/**
 * `npm run eval:diarization`: diarizes the ten AMI meeting excerpts and prints, per file and overall, the diarization
 * error rate (missed speech + false alarm + speaker confusion over reference speech; no collar, overlap scored) and
 * the real-time factor. `DIARIZATION_DATA` points at another copy of the data.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import {
  createDiarizer,
  type DiarizationError,
  type DiarizerOptions,
  diarizationError,
} from '../server/engine/diarization/index.ts'
import { type LabelledTurn, parseRttm } from '../server/engine/diarization/rttm.ts'
import { MEETINGS_DIR } from '../server/testing/meetings.ts'

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

export interface Evaluation {
  files: (DiarizationError & { id: string; speakers: number; hypothesisSpeakers: number })[]
  overall: DiarizationError
  /** Processing time over audio duration. */
  realTimeFactor: number
}

/**
 * Diarizes each meeting in turn and scores it against its reference: the speaker count is estimated, or with
 * `givenCount` passed as `numSpeakers` from the reference (as a caller who knows it would).
 */
export async function evaluateDiarization(
  meetings: Meeting[],
  options: DiarizerOptions = {},
  { givenCount = false } = {},
): Promise<Evaluation> {
  const diarizer = createDiarizer(options)
  await diarizer.diarize(new Float32Array(16_000)) // loads the VAD model outside the timing
  let seconds = 0
  let elapsed = 0
  const files: Evaluation['files'] = []
  for (const meeting of meetings) {
    const speakers = new Set(meeting.turns.map((t) => t.speaker)).size
    const started = performance.now()
    const spans = await diarizer.diarize(meeting.audio, givenCount ? { numSpeakers: speakers } : {})
    elapsed += (performance.now() - started) / 1000
    seconds += meeting.audio.length / 16_000
    files.push({
      id: meeting.id,
      speakers,
      hypothesisSpeakers: new Set(spans.map((s) => s.speaker)).size,
      ...diarizationError(meeting.turns, spans, meeting.scored),
    })
  }
  const total = (key: 'reference' | 'missed' | 'falseAlarm' | 'confusion') =>
    files.reduce((sum, f) => sum + f[key], 0)
  const reference = total('reference')
  const overall = {
    reference,
    missed: total('missed'),
    falseAlarm: total('falseAlarm'),
    confusion: total('confusion'),
    der: (total('missed') + total('falseAlarm') + total('confusion')) / reference,
  }
  return { files, overall, realTimeFactor: elapsed / seconds }
}

async function main() {
  // `--options '{"…": …}'` tries other diarizer settings (DiarizerOptions) without editing the defaults;
  // `--given-count` passes each file's reference speaker count as numSpeakers.
  const at = process.argv.indexOf('--options')
  const options: DiarizerOptions = at > 0 ? JSON.parse(process.argv[at + 1] ?? '{}') : {}
  const givenCount = process.argv.includes('--given-count')
  const { files, overall, realTimeFactor } = await evaluateDiarization(await loadMeetings(), options, {
    givenCount,
  })
  if (givenCount) console.log('speaker count given (numSpeakers = reference count)')
  const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)}%`.padStart(7)
  console.log('file   speakers  ref(s)    DER   missed  false-al  confusion')
  for (const f of [...files, { id: 'all', speakers: 0, hypothesisSpeakers: 0, ...overall }]) {
    const count = f.id === 'all' ? '        ' : `${f.speakers} → ${f.hypothesisSpeakers}  `.padStart(8)
    console.log(
      `${f.id.padEnd(6)} ${count} ${f.reference.toFixed(1).padStart(6)} ${pct(f.der * f.reference, f.reference)} ` +
        `${pct(f.missed, f.reference)} ${pct(f.falseAlarm, f.reference)}  ${pct(f.confusion, f.reference)}`,
    )
  }
  console.log(`real-time factor ${realTimeFactor.toFixed(4)} (processing time / audio duration)`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
