import { realign, spread, type TimedWord, tokensOf, type WordSpans } from '../../../core/word-alignment.ts'
import {
  type LabelEdits,
  MAX_ALIGNMENT_SECONDS,
  MAX_ALIGNMENT_WORDS,
  type StoredResult,
} from '../../../schema/index.ts'
import { entryWords } from './cue-words.ts'
import { partsOf } from './labels.ts'
import type { Entry, ReviewWord } from './turns.ts'

/**
 * Reviewers' text corrections over a transcript: a turn's words as the reviewer typed them, kept in the label edits
 * (`texts`, by the turn's index) beside the never-changed result. Words the correction shares with the recognizer
 * keep the recognizer's times; new ones are timed by core/word-alignment.ts. `correctedTurns` is what the page and
 * every export read. Pure functions; each edit returns new edits, so undo is the label edits' own.
 */

/** Below this decoder posterior a word is marked as one the recognizer was unsure of (docs/transcription.md). */
export const UNSURE_BELOW = 0.1

export const isUnsure = (word: ReviewWord): boolean =>
  !word.edited && word.confidence !== undefined && word.confidence < UNSURE_BELOW

/**
 * The result's timed words in time order, with the decoder's confidence where it gave one; for a result without
 * words (a live session keeps segments only) each segment's words spread over the segment.
 */
export function timedWords(result: StoredResult): TimedWord[] {
  const raw = (result as { words?: unknown }).words
  const words: TimedWord[] = []
  if (Array.isArray(raw)) {
    for (const w of raw) {
      if (typeof w !== 'object' || w === null) continue
      const { word, start, end, confidence } = w as Record<string, unknown>
      if (typeof word !== 'string' || typeof start !== 'number' || typeof end !== 'number') continue
      if (!Number.isFinite(start) || !Number.isFinite(end)) continue
      const timed: TimedWord = { text: word, start, end: Math.max(start, end) }
      if (typeof confidence === 'number' && Number.isFinite(confidence)) timed.confidence = confidence
      words.push(timed)
    }
  }
  if (words.length === 0)
    for (const s of result.segments ?? []) words.push(...spread(tokensOf(s.text), s.start, s.end))
  return words.sort((a, b) => a.start - b.start)
}

/** Per entry, the words found for it and the result's words they were found among. */
const machineCache = new WeakMap<Entry, { among: readonly TimedWord[]; found: ReviewWord[] }>()

/** An entry's words with times: its own when it carries them (a corrected turn, a part), else the recognizer's. */
export function wordsOf(entry: Entry, words: readonly TimedWord[]): ReviewWord[] {
  if (entry.words) return entry.words
  const cached = machineCache.get(entry)
  if (cached?.among === words) return cached.found
  const found =
    entry.start === null || entry.end === null ? [] : entryWords(entry.text, entry.start, entry.end, words)
  machineCache.set(entry, { among: words, found })
  return found
}

const correctedCache = new WeakMap<
  Entry,
  { among: readonly TimedWord[]; corrected: Entry; forced: WordSpans | undefined }
>()

/** The service's entries with the reviewers' corrected texts in place (a corrected entry carries its words). */
export function withTexts(
  entries: readonly Entry[],
  edits: LabelEdits,
  words: readonly TimedWord[],
): Entry[] {
  const texts = edits.texts
  if (!texts || Object.keys(texts).length === 0) return entries as Entry[]
  return entries.map((e) => {
    const text = texts[String(e.index)]
    if (text === undefined || e.part !== undefined) return e
    const timing = edits.timings?.[String(e.index)]
    const forced = timing?.text === text ? timing.spans : undefined
    const cached = correctedCache.get(e)
    if (cached?.among === words && cached.corrected.text === text && cached.forced === forced)
      return cached.corrected
    const corrected: Entry = {
      ...e,
      text,
      words:
        e.start === null || e.end === null ? [] : realign(wordsOf(e, words), text, e.start, e.end, forced),
    }
    correctedCache.set(e, { among: words, corrected, forced })
    return corrected
  })
}

/**
 * What the review shows and exports: the service's entries with corrected texts, cut into the parts of split turns
 * (labels.ts, partsOf), each with its words and their times. Rows already cut come back as they are.
 */
export function correctedTurns(
  entries: readonly Entry[],
  edits: LabelEdits,
  words: readonly TimedWord[],
): Entry[] {
  return partsOf(withTexts(entries, edits, words), edits, words)
}

/** Whitespace made single spaces, ends trimmed: how a typed text is kept. */
export const tidyText = (text: string): string => tokensOf(text).join(' ')

/**
 * Keeps `text` as turn `index`'s whole text, or removes the correction when it reads as the recognizer's text again
 * (so undoing by typing leaves no edit behind).
 */
export function setTurnText(
  edits: LabelEdits,
  entries: readonly Entry[],
  index: number,
  text: string,
): LabelEdits {
  const entry = entries.find((e) => e.index === index)
  if (!entry) return edits
  const key = String(index)
  const tidy = tidyText(text)
  const { [key]: _old, ...others } = edits.texts ?? {}
  const texts = tidy === tidyText(entry.text) ? others : { ...others, [key]: tidy }
  const { texts: _texts, timings, ...rest } = edits
  // A timing stays only with the text it was found for.
  const { [key]: timing, ...otherTimings } = timings ?? {}
  const kept = timing && texts[key] === timing.text ? { ...otherTimings, [key]: timing } : otherTimings
  return {
    ...rest,
    ...(Object.keys(texts).length > 0 ? { texts } : {}),
    ...(Object.keys(kept).length > 0 ? { timings: kept } : {}),
  }
}

/**
 * The turns whose corrected text `after` changed from `before` and has no times found for it: those to ask forced
 * alignment for, within its limits (a longer turn keeps proportional times).
 */
export function turnsToAlign(before: LabelEdits, after: LabelEdits, entries: readonly Entry[]): number[] {
  const out: number[] = []
  for (const [key, text] of Object.entries(after.texts ?? {})) {
    if (before.texts?.[key] === text || after.timings?.[key]?.text === text) continue
    const entry = entries.find((e) => String(e.index) === key)
    if (!entry || entry.start === null || entry.end === null) continue
    if (entry.end - entry.start > MAX_ALIGNMENT_SECONDS || tokensOf(text).length > MAX_ALIGNMENT_WORDS)
      continue
    out.push(entry.index)
  }
  return out
}

/**
 * Keeps forced-alignment times for turn `index`'s corrected text; nothing changes when the turn has since been
 * corrected to another text (the answer came too late) or the spans do not fit the text's words.
 */
export function setTurnTiming(edits: LabelEdits, index: number, text: string, spans: WordSpans): LabelEdits {
  const key = String(index)
  if (edits.texts?.[key] !== text || spans.length !== tokensOf(text).length) return edits
  return {
    ...edits,
    timings: { ...edits.timings, [key]: { text, spans: spans.map(([s, e]) => [s, e] as [number, number]) } },
  }
}

/**
 * Corrects the text of `row` (a turn, or a part of a split turn) to `text`: the turn's words outside the row are
 * kept, the row's replaced by the new ones. `rows` are correctedTurns' (the row's turn found among them by index).
 */
export function correctRow(
  edits: LabelEdits,
  entries: readonly Entry[],
  rows: readonly Entry[],
  row: Entry,
  text: string,
): LabelEdits {
  const parts = rows.filter((r) => r.index === row.index)
  const whole = parts.map((r) => (r === row ? tidyText(text) : r.text)).filter(Boolean)
  return setTurnText(edits, entries, row.index, whole.join(' '))
}

export interface FindOptions {
  wholeWord: boolean
  matchCase: boolean
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The search as a global regular expression, or null for an empty one. */
export function findPattern(find: string, opts: FindOptions): RegExp | null {
  if (find === '') return null
  const body = escapeRegExp(find)
  const source = opts.wholeWord ? `(?<![\\p{L}\\p{N}'])${body}(?![\\p{L}\\p{N}'])` : body
  return new RegExp(source, `gu${opts.matchCase ? '' : 'i'}`)
}

/** How many times `find` occurs in the rows' texts. */
export function countMatches(rows: readonly Entry[], find: string, opts: FindOptions): number {
  const pattern = findPattern(find, opts)
  if (!pattern) return 0
  let count = 0
  for (const r of rows) for (const _ of r.text.matchAll(pattern)) count++
  return count
}

/**
 * Replaces every occurrence of `find` in the corrected turns with `replacement`, as one edit (one undo), and says
 * how many it replaced. `rows` are correctedTurns'.
 */
export function replaceAll(
  edits: LabelEdits,
  entries: readonly Entry[],
  rows: readonly Entry[],
  find: string,
  replacement: string,
  opts: FindOptions,
): { edits: LabelEdits; replaced: number } {
  const pattern = findPattern(find, opts)
  if (!pattern) return { edits, replaced: 0 }
  let replaced = 0
  let next = edits
  const byTurn = new Map<number, string[]>()
  for (const r of rows) byTurn.set(r.index, [...(byTurn.get(r.index) ?? []), r.text])
  for (const [index, texts] of byTurn) {
    const text = texts.filter(Boolean).join(' ')
    const hits = [...text.matchAll(pattern)].length
    if (hits === 0) continue
    replaced += hits
    next = setTurnText(
      next,
      entries,
      index,
      text.replace(pattern, () => replacement),
    )
  }
  return { edits: next, replaced }
}

/**
 * After a conflict: the other reviewer's edits (`theirs`) with this reviewer's text corrections made since `base`
 * (the edits both started from) laid on top, turn by turn, so corrections of different turns are not lost. Where
 * both corrected the same turn differently theirs stay, and the turn is listed in `clashed`.
 */
export function mergeTexts(
  base: LabelEdits,
  mine: LabelEdits,
  theirs: LabelEdits,
): { edits: LabelEdits; kept: number[]; clashed: number[] } {
  const keys = new Set([...Object.keys(mine.texts ?? {}), ...Object.keys(base.texts ?? {})])
  const texts = { ...(theirs.texts ?? {}) }
  const timings = { ...(theirs.timings ?? {}) }
  const kept: number[] = []
  const clashed: number[] = []
  for (const key of keys) {
    const b = base.texts?.[key]
    const m = mine.texts?.[key]
    const t = theirs.texts?.[key]
    if (m === b || m === t) continue
    if (t !== b) {
      clashed.push(Number(key))
      continue
    }
    if (m === undefined) delete texts[key]
    else texts[key] = m
    // A correction's timing goes with it.
    const timing = mine.timings?.[key]
    if (timing && timing.text === m) timings[key] = timing
    else delete timings[key]
    kept.push(Number(key))
  }
  if (kept.length === 0) return { edits: theirs, kept, clashed }
  const { texts: _texts, timings: _timings, ...rest } = theirs
  const edits = {
    ...rest,
    ...(Object.keys(texts).length > 0 ? { texts } : {}),
    ...(Object.keys(timings).length > 0 ? { timings } : {}),
  }
  return { edits, kept, clashed }
}
