import type { LabelEdits, StoredResult } from '../../../schema/index.ts'
import { labelMap, nameOf, resolveSpeaker, speakerOf } from './labels.ts'
import type { Entry } from './turns.ts'

/**
 * Exports of a reviewed transcript, with the speaker names after edits: SRT, WebVTT (speakers as voice spans), JSON
 * (the service's result unchanged plus the label map) and plain text with timecodes. Pure functions returning text.
 *
 * Entries without times (the trailing unattributed text) are placed after the last timed entry, up to the end of the
 * recording (at least one second), so no text is lost from the subtitle formats.
 */

export interface ExportInput {
  result: StoredResult
  entries: readonly Entry[]
  edits: LabelEdits
  /** Seconds; the recording's length when known. */
  duration?: number | null
}

interface Cue {
  start: number
  end: number
  speaker: string | null
  text: string
}

/** Milliseconds, rounded, never negative. */
const ms = (seconds: number) => Math.max(0, Math.round(seconds * 1000))

function timestamp(seconds: number, separator: ',' | '.'): string {
  const total = ms(seconds)
  const h = Math.floor(total / 3_600_000)
  const m = Math.floor((total % 3_600_000) / 60_000)
  const s = Math.floor((total % 60_000) / 1000)
  const rest = total % 1000
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(rest, 3)}`
}

export const srtTime = (seconds: number) => timestamp(seconds, ',')
export const vttTime = (seconds: number) => timestamp(seconds, '.')

/** The cues in time order; untimed entries after the last timed one; empty texts left out. */
export function cuesOf({ result, entries, edits, duration }: ExportInput): Cue[] {
  const timed: Cue[] = []
  const untimed: Entry[] = []
  for (const e of entries) {
    const text = e.text.trim()
    if (!text) continue
    if (e.start === null || e.end === null) untimed.push(e)
    else timed.push({ start: e.start, end: Math.max(e.end, e.start), speaker: speakerOf(edits, e), text })
  }
  timed.sort((a, b) => a.start - b.start || a.end - b.end)
  let cursor = timed.reduce((max, c) => Math.max(max, c.end), 0)
  const recordingEnd = duration ?? result.duration ?? 0
  for (const e of untimed) {
    const end = Math.max(cursor + 1, recordingEnd)
    timed.push({ start: cursor, end, speaker: speakerOf(edits, e), text: e.text.trim() })
    cursor = end
  }
  // A cue must end after it starts (1 ms at least, once rounded).
  for (const c of timed) if (ms(c.end) <= ms(c.start)) c.end = c.start + 0.001
  return timed
}

/** SRT lines may not hold a blank line (it ends the cue). */
const srtText = (text: string) => text.replace(/\r\n?/g, '\n').replace(/\n{2,}/g, '\n')

export function toSrt(input: ExportInput): string {
  return cuesOf(input)
    .map((c, i) => {
      const speaker = c.speaker === null ? '' : `${nameOf(input.edits, c.speaker)}: `
      return `${i + 1}\n${srtTime(c.start)} --> ${srtTime(c.end)}\n${speaker}${srtText(c.text)}\n`
    })
    .join('\n')
}

/** WebVTT cue text: `&`, `<` and `>` escaped, no blank lines, no `-->`. */
export function vttEscape(text: string): string {
  return srtText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

export function toVtt(input: ExportInput): string {
  const cues = cuesOf(input).map((c) => {
    const text = vttEscape(c.text)
    const body = c.speaker === null ? text : `<v ${vttEscape(nameOf(input.edits, c.speaker))}>${text}</v>`
    return `${vttTime(c.start)} --> ${vttTime(c.end)}\n${body}\n`
  })
  return ['WEBVTT\n', ...cues].join('\n')
}

/**
 * The service's result exactly as it came, plus `labels`: `speakers` maps every original speaker to the name it reads
 * as (merged speakers map to their target's name), `turns` lists the reassigned entries with the speaker they show,
 * and `edits` is the reviewers' edits as saved.
 */
export function toJson({ result, edits }: ExportInput, speakers: readonly string[]): string {
  const turns = Object.entries(edits.turns)
    .map(([index, speaker]) => {
      const shown = resolveSpeaker(edits, speaker)
      return { index: Number(index), speaker: shown, name: nameOf(edits, shown) }
    })
    .sort((a, b) => a.index - b.index)
  return `${JSON.stringify({ ...result, labels: { speakers: labelMap(speakers, edits), turns, edits } }, null, 2)}\n`
}

function textTime(seconds: number): string {
  const [hms, millis] = vttTime(seconds).split('.')
  return `${hms}.${(millis ?? '000').slice(0, 1)}`
}

/** One line per entry: `[00:00:01.2 - 00:00:04.5] Name: text`; untimed entries read `[untimed]`. */
export function toText({ entries, edits }: ExportInput): string {
  return entries
    .filter((e) => e.text.trim())
    .map((e) => {
      const when =
        e.start === null || e.end === null ? 'untimed' : `${textTime(e.start)} - ${textTime(e.end)}`
      const text = e.text.trim().replace(/\s*\n\s*/g, ' ')
      return `[${when}] ${nameOf(edits, speakerOf(edits, e))}: ${text}\n`
    })
    .join('')
}

export type ExportFormat = 'srt' | 'vtt' | 'json' | 'txt'

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  srt: 'application/x-subrip',
  vtt: 'text/vtt',
  json: 'application/json',
  txt: 'text/plain',
}

export function exportAs(format: ExportFormat, input: ExportInput, speakers: readonly string[]): string {
  if (format === 'srt') return toSrt(input)
  if (format === 'vtt') return toVtt(input)
  if (format === 'json') return toJson(input, speakers)
  return toText(input)
}
