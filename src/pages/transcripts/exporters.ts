import {
  vttEscape as escapeVtt,
  finishCues,
  renderSrt,
  renderVtt,
  type SubtitleCue,
  speakerPrefix,
  splitCues,
  subtitleTime,
  wordsOverSpan,
} from '../../../core/subtitle-cues.ts'
import type { LabelEdits, StoredResult } from '../../../schema/index.ts'
import { correctedTurns, timedWords, wordsOf } from './corrections.ts'
import { labelMap, nameOf, resolveSpeaker, speakerOf } from './labels.ts'
import type { Entry } from './turns.ts'

/**
 * Exports of a reviewed transcript, with the speaker names and corrected words after edits (corrections.ts,
 * `correctedTurns`): SRT, WebVTT (speakers as voice spans), JSON (the service's result unchanged plus the label map
 * and the turns as reviewed) and plain text with timecodes. Pure functions returning text.
 *
 * Entries without times (the trailing unattributed text) are placed after the last timed entry, up to the end of the
 * recording (at least one second, and 0.3 s a word), so no text is lost from the subtitle formats. The subtitle
 * formats cut every entry into cues of at most 7 s and two lines of 42 characters at its words' times
 * (core/subtitle-cues.ts, shared with the service's own srt and vtt).
 */

export interface ExportInput {
  result: StoredResult
  /** The service's entries (turns.ts, entriesOf); rows already cut into parts are taken as they are. */
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

/** The rows an export writes: the entries with the reviewers' corrections and splits. */
const rowsOf = ({ result, entries, edits }: ExportInput): Entry[] =>
  correctedTurns(entries, edits, timedWords(result))

/** Milliseconds, rounded, never negative. */
const ms = (seconds: number) => Math.max(0, Math.round(seconds * 1000))

export const srtTime = (seconds: number) => subtitleTime(seconds, ',')
export const vttTime = (seconds: number) => subtitleTime(seconds, '.')

/** Seconds of screen time an untimed entry gets per word, at least. */
const UNTIMED_SECONDS_PER_WORD = 0.3

/** Entry cues with the row they show, timed by the service (or a correction) or placed here (untimed). */
function placedCues(input: ExportInput): Array<Cue & { row?: Entry }> {
  const { result, edits, duration } = input
  const timed: Array<Cue & { row?: Entry }> = []
  const untimed: Entry[] = []
  for (const e of rowsOf(input)) {
    const text = e.text.trim()
    if (!text) continue
    if (e.start === null || e.end === null) untimed.push(e)
    else
      timed.push({
        start: e.start,
        end: Math.max(e.end, e.start),
        speaker: speakerOf(edits, e),
        text,
        row: e,
      })
  }
  timed.sort((a, b) => a.start - b.start || a.end - b.end)
  let cursor = timed.reduce((max, c) => Math.max(max, c.end), 0)
  const recordingEnd = duration ?? result.duration ?? 0
  for (const e of untimed) {
    const text = e.text.trim()
    const words = text.split(/\s+/).length
    const end = Math.max(cursor + 1, recordingEnd, cursor + words * UNTIMED_SECONDS_PER_WORD)
    timed.push({ start: cursor, end, speaker: speakerOf(edits, e), text })
    cursor = end
  }
  // A cue must end after it starts (1 ms at least, once rounded).
  for (const c of timed) if (ms(c.end) <= ms(c.start)) c.end = c.start + 0.001
  return timed
}

/** The entries as cues in time order; untimed entries after the last timed one; empty texts left out. */
export function cuesOf(input: ExportInput): Cue[] {
  return placedCues(input).map(({ row: _, ...cue }) => cue)
}

/**
 * The subtitle cues of an export: each entry's words (their recognized times where the result has them) cut into
 * cues within the limits, each with its speaker — written into the first line for SRT (`Name: `, counted in the
 * line's length), as a voice span for WebVTT; unattributed text has no speaker.
 */
export function subtitleCuesOf(input: ExportInput, format: 'srt' | 'vtt'): SubtitleCue[] {
  const words = timedWords(input.result)
  const cues = placedCues(input).flatMap((c) => {
    const timedWords = c.row ? wordsOf(c.row, words) : wordsOverSpan(c.text, c.start, c.end)
    const named = c.speaker === null ? null : nameOf(input.edits, c.speaker)
    if (named === null) return splitCues(timedWords)
    return format === 'srt'
      ? splitCues(timedWords, { prefix: speakerPrefix(named) })
      : splitCues(timedWords, { voice: named })
  })
  return finishCues(cues)
}

export const toSrt = (input: ExportInput): string => renderSrt(subtitleCuesOf(input, 'srt'))

/** WebVTT cue text: `&`, `<` and `>` escaped, no blank lines, no `-->`. */
export const vttEscape = (text: string): string =>
  escapeVtt(text.replace(/\r\n?/g, '\n').replace(/\n{2,}/g, '\n'))

export const toVtt = (input: ExportInput): string => renderVtt(subtitleCuesOf(input, 'vtt'))

/**
 * The service's result exactly as it came, plus `labels`: `speakers` maps every original speaker to the name it reads
 * as (merged speakers map to their target's name), `turns` lists the reassigned entries with the speaker they show,
 * `edits` is the reviewers' edits as saved, and `transcript` the turns as reviewed: each row's speaker, name, times,
 * corrected text and words with their times (`edited` on a reviewer's word).
 */
export function toJson(input: ExportInput, speakers: readonly string[]): string {
  const { result, edits } = input
  const words = timedWords(result)
  const transcript = rowsOf(input).map((e) => {
    const speaker = speakerOf(edits, e)
    return {
      index: e.index,
      ...(e.part ? { part: e.part } : {}),
      speaker,
      name: nameOf(edits, speaker),
      start: e.start,
      end: e.end,
      text: e.text,
      words: wordsOf(e, words).map((w) => ({
        word: w.text,
        start: Math.round(w.start * 1000) / 1000,
        end: Math.round(w.end * 1000) / 1000,
        ...(w.edited ? { edited: true } : {}),
      })),
    }
  })
  const turns = Object.entries(edits.turns)
    .map(([index, speaker]) => {
      const shown = resolveSpeaker(edits, speaker)
      return { index: Number(index), speaker: shown, name: nameOf(edits, shown) }
    })
    .sort((a, b) => a.index - b.index)
  const labels = { speakers: labelMap(speakers, edits), turns, edits, transcript }
  return `${JSON.stringify({ ...result, labels }, null, 2)}\n`
}

function textTime(seconds: number): string {
  const [hms, millis] = vttTime(seconds).split('.')
  return `${hms}.${(millis ?? '000').slice(0, 1)}`
}

/** One line per entry: `[00:00:01.2 - 00:00:04.5] Name: text`; untimed entries read `[untimed]`. */
export function toText(input: ExportInput): string {
  const { edits } = input
  return rowsOf(input)
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
