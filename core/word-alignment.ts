/**
 * Times for a corrected text: a reviewer's words laid against the recognizer's words they replace. Words both share
 * (compared without case and punctuation) keep the recognizer's times; each run of new words gets times spread in
 * proportion to its characters over the time of the words it replaced, or over the pause between its neighbours when
 * it replaced none (docs/transcription.md measures how close this comes). Pure: the review page and the measurement
 * run it alike.
 */
import { type CueWord, wordsOverSpan } from './subtitle-cues.ts'

export interface TimedWord extends CueWord {
  /** The decoder's posterior, 0…1, when it gave one. */
  confidence?: number
}

export interface AlignedWord extends TimedWord {
  /** The reviewer's word rather than the recognizer's (a changed spelling of the same word counts). */
  edited: boolean
}

/** What two words are compared by: lower case, letters, digits and apostrophes. */
export const wordKey = (word: string): string => word.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '')

/** Tokens of a text: runs of non-space characters. */
export const tokensOf = (text: string): string[] => text.split(/\s+/).filter(Boolean)

/** Each of `tokens` spread over [start, end] in proportion to its length (the subtitle cues' spreading). */
export const spread = (tokens: readonly string[], start: number, end: number): TimedWord[] =>
  wordsOverSpan(tokens.join(' '), start, end)

/**
 * Pairs of (index in `a`, index in `b`) of a longest common subsequence of the two key lists, in order. Keys that are
 * empty (punctuation alone) never pair.
 */
export function commonWords(a: readonly string[], b: readonly string[]): Array<[number, number]> {
  const n = a.length
  const m = b.length
  const width = m + 1
  const table = new Uint32Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] =
        a[i] && a[i] === b[j]
          ? (table[(i + 1) * width + j + 1] as number) + 1
          : Math.max(table[(i + 1) * width + j] as number, table[i * width + j + 1] as number)
    }
  }
  const pairs: Array<[number, number]> = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] && a[i] === b[j]) {
      pairs.push([i, j])
      i++
      j++
    } else if ((table[(i + 1) * width + j] as number) >= (table[i * width + j + 1] as number)) i++
    else j++
  }
  return pairs
}

/** Where each token of a text was said, found by forced alignment: [start, end] in seconds, one per token. */
export type WordSpans = ReadonlyArray<readonly [number, number]>

/**
 * The words of `text` with times, laid against `before` (the words it corrects, in time order) within
 * [start, end] (the turn's span). With `forced` (one span per token of `text`), new words take those times, kept
 * between the neighbours that keep theirs, instead of spreading.
 */
export function realign(
  before: readonly TimedWord[],
  text: string,
  start: number,
  end: number,
  forced?: WordSpans,
): AlignedWord[] {
  const tokens = tokensOf(text)
  const pairs = commonWords(
    before.map((w) => wordKey(w.text)),
    tokens.map(wordKey),
  )
  const out: AlignedWord[] = []
  /** Next token to place, and the last paired word of `before` (-1: none yet). */
  let next = 0
  let lastBefore = -1
  const placeRun = (upTo: number, nextBefore: number) => {
    if (next >= upTo) return
    const replaced = before.slice(lastBefore + 1, nextBefore)
    const from = replaced[0]?.start ?? (lastBefore >= 0 ? (before[lastBefore] as TimedWord).end : start)
    const to =
      replaced.at(-1)?.end ??
      (nextBefore < before.length ? (before[nextBefore] as TimedWord).start : Math.max(end, from))
    if (forced && forced.length === tokens.length) {
      const lo = lastBefore >= 0 ? (before[lastBefore] as TimedWord).end : start
      const hi = Math.max(lo, nextBefore < before.length ? (before[nextBefore] as TimedWord).start : end)
      for (let k = next; k < upTo; k++) {
        const [s, e] = forced[k] as readonly [number, number]
        const wordStart = Math.min(hi, Math.max(lo, s))
        out.push({
          text: tokens[k] as string,
          start: wordStart,
          end: Math.min(hi, Math.max(wordStart, e)),
          edited: true,
        })
      }
    } else {
      for (const w of spread(tokens.slice(next, upTo), from, Math.max(from, to)))
        out.push({ ...w, edited: true })
    }
    next = upTo
  }
  for (const [i, j] of pairs) {
    placeRun(j, i)
    const word = before[i] as TimedWord
    const token = tokens[j] as string
    out.push({ ...word, text: token, edited: token !== word.text })
    next = j + 1
    lastBefore = i
  }
  placeRun(tokens.length, before.length)
  return out
}
