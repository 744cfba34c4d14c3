import { type CueWord, wordsOverSpan } from '../../../core/subtitle-cues.ts'
import type { StoredResult } from '../../../schema/index.ts'

/**
 * Word times for an entry's text, so that the subtitle exports can cut turns into cues at word boundaries. The
 * service's verbose_json carries every word with its time; a turn's text is the text of the transcript segments it
 * received (contract 4.12), so its words are found among the recognized words near the turn, in order. Pure.
 */

/** The result's timed words (verbose_json `words`), in time order; none for a json result or an older save. */
export function resultWords(result: StoredResult): CueWord[] {
  const raw = (result as { words?: unknown }).words
  if (!Array.isArray(raw)) return []
  const words: CueWord[] = []
  for (const w of raw) {
    if (typeof w !== 'object' || w === null) continue
    const { word, start, end } = w as { word?: unknown; start?: unknown; end?: unknown }
    if (typeof word !== 'string' || typeof start !== 'number' || typeof end !== 'number') continue
    if (!Number.isFinite(start) || !Number.isFinite(end)) continue
    words.push({ text: word, start, end: Math.max(start, end) })
  }
  return words.sort((a, b) => a.start - b.start)
}

/** A timed word, with the decoder's confidence when it gave one (kept on the words matched to it). */
export type ConfidentWord = CueWord & { confidence?: number }

/**
 * How far outside an entry's times its words may lie: a transcript segment (at most 10 s) goes wholly to the turn it
 * overlaps most, so its words can reach past the turn's span by up to a segment's length.
 */
const SLACK_SECONDS = 10
/** How many recognized words ahead a token is looked for. */
const LOOKAHEAD = 64
/** A jump is trusted when at least two of this many tokens agree (a lone "the" proves nothing). */
const RUN = 3

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '')

/**
 * Each whitespace-separated token of `text` with a time: the recognized word it matches (in order, near
 * `[start, end]`), or, for tokens matching none, times spread between their matched neighbours (the entry's own start
 * and end at the edges). With no words at all, the tokens are spread over `[start, end]`.
 */
export function entryWords(
  text: string,
  start: number,
  end: number,
  words: readonly ConfidentWord[],
): ConfidentWord[] {
  const tokens = text.split(/\s+/).filter(Boolean)
  if (tokens.length === 0) return []
  const from = lowerBound(words, start - SLACK_SECONDS)
  const to = lowerBound(words, end + SLACK_SECONDS)
  const near = words.slice(from, to)
  const keys = tokens.map(norm)
  const nearKeys = near.map((w) => norm(w.text))
  /** The matched word for each token, or undefined. */
  const matched: Array<ConfidentWord | undefined> = new Array(tokens.length)
  let cursor = 0
  let any = false
  /**
   * Whether token `i` may be placed at word `k`: they match, and so do at least two of the next `RUN` pairs (all of
   * them when fewer remain); a lone token with nothing matched yet must lie within the entry's own span.
   */
  const runAt = (i: number, k: number) => {
    if (!keys[i] || keys[i] !== nearKeys[k]) return false
    const run = Math.min(RUN, tokens.length - i, near.length - k)
    let agree = 0
    for (let r = 0; r < run; r++) if (keys[i + r] && keys[i + r] === nearKeys[k + r]) agree++
    if (run === 1) {
      const word = near[k] as CueWord
      return any || (word.start >= start - 0.5 && word.end <= end + 0.5)
    }
    return agree >= 2
  }
  for (let i = 0; i < tokens.length; i++) {
    if (any && cursor < near.length && keys[i] && keys[i] === nearKeys[cursor]) {
      matched[i] = near[cursor]
      cursor++
      continue
    }
    for (let k = cursor; k < Math.min(near.length, cursor + LOOKAHEAD); k++) {
      if (runAt(i, k)) {
        matched[i] = near[k]
        cursor = k + 1
        any = true
        break
      }
    }
  }
  if (!any) return wordsOverSpan(text, start, end).map((w, i) => ({ ...w, text: tokens[i] as string }))

  const out: ConfidentWord[] = []
  let i = 0
  while (i < tokens.length) {
    const hit = matched[i]
    if (hit) {
      out.push({ ...hit, text: tokens[i] as string })
      i++
      continue
    }
    // A run of unmatched tokens, spread between the neighbours' times.
    let j = i
    while (j < tokens.length && !matched[j]) j++
    const before = out.at(-1)?.end ?? Math.min(start, (matched[j] as CueWord).start)
    const after = j < tokens.length ? (matched[j] as CueWord).start : Math.max(end, before)
    const run = tokens.slice(i, j)
    const spread = wordsOverSpan(run.join(' '), before, Math.max(before, after))
    run.forEach((t, r) => {
      out.push({ ...(spread[r] as CueWord), text: t })
    })
    i = j
  }
  return out
}

/** The first index whose word starts at or after `t`. */
function lowerBound(words: readonly CueWord[], t: number): number {
  let lo = 0
  let hi = words.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((words[mid] as CueWord).start < t) lo = mid + 1
    else hi = mid
  }
  return lo
}
