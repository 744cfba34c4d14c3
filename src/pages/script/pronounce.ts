import { emphasize, findMarkup } from '../../../schema/index.ts'

/**
 * The studio's pronunciations applied to a line before it is sent: each whole-word match of an entry's word or phrase
 * becomes its respelling, or its phonemes in the local service's form `[[IPA]]` where the model honours them
 * (schema/pronunciations.ts `PHONEME_INPUT`). Markup is never touched: emotion and sound tags are not text, and words
 * inside emphasis are matched and stay emphasized. A phrase is matched within one stretch of text, not across a tag or
 * an emphasis edge. Where two matches overlap, the one that starts first wins, then the longer, then the entry that
 * matches case as written.
 */

export interface LexiconEntry {
  text: string
  say_as: string
  phonemes: string | null
  case_sensitive: boolean
}

export interface PronunciationMatch<E extends LexiconEntry = LexiconEntry> {
  start: number
  end: number
  entry: E
}

export interface Lexicon<E extends LexiconEntry = LexiconEntry> {
  find(text: string): PronunciationMatch<E>[]
}

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u
const SPACE = /\s/
const collapse = (s: string) => s.trim().replace(/\s+/g, ' ')

/** Whether the code point ending before `at` (or starting at it) is part of a word. */
function wordBefore(text: string, at: number): boolean {
  if (at <= 0) return false
  const low = text.charCodeAt(at - 1)
  const from = low >= 0xdc00 && low <= 0xdfff && at >= 2 ? at - 2 : at - 1
  return WORD_CHAR.test(text.slice(from, at))
}
function wordAt(text: string, at: number): boolean {
  if (at >= text.length) return false
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(at) ?? 0))
}

interface Candidate<E> {
  entry: E
  /** The entry's words (lower-cased when any case matches), matched with any run of spaces between them. */
  words: string[]
  cased: boolean
  /** Bounded where the entry begins or ends with a word character, so it matches whole words only. */
  head: boolean
  tail: boolean
  /** Characters of the entry before its first word (".NET": 1). */
  lead: number
  length: number
}

/** The end of the candidate's match when it begins at `at`, else -1. No regular expression per entry: 2,000 of
 * them took seconds to compile. */
function matchAt<E>(c: Candidate<E>, text: string, at: number): number {
  if (c.head && wordBefore(text, at)) return -1
  let i = at
  for (const [n, word] of c.words.entries()) {
    if (n > 0) {
      const from = i
      while (i < text.length && SPACE.test(text[i] as string)) i++
      if (i === from) return -1
    }
    const slice = text.slice(i, i + word.length)
    if ((c.cased ? slice : slice.toLowerCase()) !== word) return -1
    i += word.length
  }
  return c.tail && wordAt(text, i) ? -1 : i
}

const WORDS = /[\p{L}\p{N}\p{M}]+/gu
const FIRST_WORD = /[\p{L}\p{N}\p{M}]+/u

/**
 * Entries by their first word (lower-cased for those of any case), longest first, so a line is read word by word and
 * each word is tried only against the entries that begin with it: a single alternation of 2,000 entries took seconds
 * for a long script (bench in the commit message).
 */
function index<E extends LexiconEntry>(entries: readonly E[]) {
  const byWord = { cased: new Map<string, Candidate<E>[]>(), anyCase: new Map<string, Candidate<E>[]>() }
  const seen = new Set<string>()
  for (const entry of entries) {
    const text = collapse(entry.text)
    const key = entry.case_sensitive ? `c:${text}` : `a:${text.toLowerCase()}`
    const first = FIRST_WORD.exec(text)
    if (seen.has(key) || !first) continue
    seen.add(key)
    const map = entry.case_sensitive ? byWord.cased : byWord.anyCase
    const word = entry.case_sensitive ? first[0] : first[0].toLowerCase()
    const list = map.get(word) ?? []
    list.push({
      entry,
      words: (entry.case_sensitive ? text : text.toLowerCase()).split(' '),
      cased: entry.case_sensitive,
      head: WORD_CHAR.test(String.fromCodePoint(text.codePointAt(0) ?? 0)),
      tail: WORD_CHAR.test([...text.slice(-2)].at(-1) ?? ''),
      lead: first.index,
      length: text.length,
    })
    map.set(word, list)
  }
  for (const map of [byWord.cased, byWord.anyCase])
    for (const list of map.values()) list.sort((a, b) => b.length - a.length)
  return byWord
}

/** Stretches of the line that are text, with where each begins: between tags, and the words inside emphasis. */
function textStretches(line: string): Array<{ start: number; text: string }> {
  const stretches: Array<{ start: number; text: string }> = []
  let last = 0
  for (const m of findMarkup(line)) {
    if (m.start > last) stretches.push({ start: last, text: line.slice(last, m.start) })
    if (m.kind === 'emphasis') stretches.push({ start: m.start + 3, text: m.text })
    last = m.end
  }
  if (last < line.length) stretches.push({ start: last, text: line.slice(last) })
  return stretches
}

export function buildLexicon<E extends LexiconEntry>(entries: readonly E[]): Lexicon<E> {
  const byWord = index(entries)
  const empty = byWord.cased.size === 0 && byWord.anyCase.size === 0
  return {
    find(line) {
      if (empty) return []
      const found: Array<PronunciationMatch<E> & { cased: boolean }> = []
      for (const stretch of textStretches(line))
        for (const word of stretch.text.matchAll(WORDS)) {
          const tries = [
            ...(byWord.cased.get(word[0]) ?? []).map((c) => ({ c, cased: true })),
            ...(byWord.anyCase.get(word[0].toLowerCase()) ?? []).map((c) => ({ c, cased: false })),
          ]
          for (const { c, cased } of tries) {
            const at = word.index - c.lead
            if (at < 0) continue
            const end = matchAt(c, stretch.text, at)
            if (end < 0) continue
            const start = stretch.start + at
            found.push({ start, end: stretch.start + end, entry: c.entry, cased })
          }
        }
      found.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.cased) - Number(a.cased))
      const chosen: PronunciationMatch<E>[] = []
      let reached = 0
      for (const { start, end, entry } of found)
        if (start >= reached) {
          chosen.push({ start, end, entry })
          reached = end
        }
      return chosen
    },
  }
}

/** What an entry sends: its phonemes in the local service's form where they are honoured, else its respelling. */
export function spokenForm(entry: LexiconEntry, phonemes: boolean): string {
  return phonemes && entry.phonemes ? `[[${entry.phonemes}]]` : entry.say_as
}

/** The line as it is sent. Without matches it is the line itself. */
export function applyPronunciations(line: string, lexicon: Lexicon, phonemes: boolean): string {
  const matches = lexicon.find(line)
  if (matches.length === 0) return line
  const replace = (from: number, to: number) => {
    let out = ''
    let at = from
    for (const m of matches)
      if (m.start >= from && m.end <= to) {
        out += line.slice(at, m.start) + spokenForm(m.entry, phonemes)
        at = m.end
      }
    return out + line.slice(at, to)
  }
  let out = ''
  let last = 0
  for (const m of findMarkup(line)) {
    out += replace(last, m.start)
    out += m.kind === 'emphasis' ? emphasize(replace(m.start + 3, m.end - 3)) : m.text
    last = m.end
  }
  return out + replace(last, line.length)
}
