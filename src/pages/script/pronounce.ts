import { findMarkup, MAX_EMPHASIS_CHARS } from '../../../schema/index.ts'

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
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const collapse = (s: string) => s.trim().replace(/\s+/g, ' ')

/** The pattern of one entry: its words with any run of spaces between them, bounded where it begins or ends a word. */
function entrySource(text: string): string {
  const words = collapse(text)
  const body = words.split(' ').map(escapeRegex).join('\\s+')
  const head = WORD_CHAR.test(words[0] ?? '') ? '(?<![\\p{L}\\p{N}\\p{M}])' : ''
  const tail = WORD_CHAR.test(words.at(-1) ?? '') ? '(?![\\p{L}\\p{N}\\p{M}])' : ''
  return `${head}${body}${tail}`
}

/** One alternation per case rule, longest entries first so that at any position the longest phrase is taken. */
function compile<E extends LexiconEntry>(entries: readonly E[], caseSensitive: boolean) {
  const byKey = new Map<string, E>()
  const key = (s: string) => (caseSensitive ? collapse(s) : collapse(s).toLowerCase())
  for (const e of entries)
    if (e.case_sensitive === caseSensitive && !byKey.has(key(e.text))) byKey.set(key(e.text), e)
  if (byKey.size === 0) return null
  const sources = [...byKey.values()]
    .sort((a, b) => collapse(b.text).length - collapse(a.text).length)
    .map((e) => entrySource(e.text))
  return { regex: new RegExp(sources.join('|'), caseSensitive ? 'gu' : 'giu'), byKey, key }
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
  const groups = [compile(entries, true), compile(entries, false)].filter((g) => g !== null)
  return {
    find(line) {
      if (groups.length === 0) return []
      const found: Array<PronunciationMatch<E> & { cased: boolean }> = []
      for (const stretch of textStretches(line))
        for (const [i, group] of groups.entries())
          for (const m of stretch.text.matchAll(group.regex)) {
            const entry = group.byKey.get(group.key(m[0]))
            if (!entry) continue
            const start = stretch.start + m.index
            found.push({ start, end: start + m[0].length, entry, cased: i === 0 && entry.case_sensitive })
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

/**
 * Emphasis whose words a respelling made longer than the model's limit would be read with its parentheses; like the
 * engine's normalizer, it becomes consecutive emphasized runs.
 */
function reEmphasize(words: string): string {
  if (words.length <= MAX_EMPHASIS_CHARS) return `(((${words})))`
  const runs: string[] = []
  let run = ''
  for (const word of words.trim().split(/\s+/)) {
    if (run && run.length + 1 + word.length > MAX_EMPHASIS_CHARS) {
      runs.push(run)
      run = word
    } else run = run ? `${run} ${word}` : word
  }
  runs.push(run)
  return runs.map((r) => `(((${r})))`).join(' ')
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
    out += m.kind === 'emphasis' ? reEmphasize(replace(m.start + 3, m.end - 3)) : m.text
    last = m.end
  }
  return out + replace(last, line.length)
}
