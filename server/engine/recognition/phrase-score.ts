/**
 * Scoring of a known-phrase decode. The grammar lets the decoder skip any phrase word and fill any stretch with a
 * gap, so what it returns is always an in-order subset of the phrase. Two kinds of error remain to be counted:
 *
 * - a phrase word that is missing (skipped, or covered by a gap);
 * - a gap between two recognized words that holds speech: the decoder's silence unit readily swallows a word that
 *   is not in the phrase (an inserted "not"), so such a gap counts as spoken when enough of its frames are voiced
 *   by the level detector. Gaps before the first and after the last recognized word are not counted: what is said
 *   around the phrase ("okay, …") does not change it, and the ends of the phrase's own first and last words often
 *   spill into them.
 *
 * The word error rate is the word-level edit distance between the phrase and this result, over the phrase's length;
 * the score is 1 − WER, floored at 0. Phrase words the dictionary does not hold cannot be recognized: one of them
 * counts as said when a spoken gap stands in its place, costs nothing when missing, and is left out of the length.
 */

import type { SegmentedWord } from './decoder-output.ts'
import { isGapWord } from './phrase-grammar.ts'
import { canonicalWords } from './phrase-words.ts'

/**
 * Voiced frames from which a gap counts as a spoken word: 0.12 s, less than a short word such as "not" (0.2 s and
 * more), more than the bits of neighbouring words the decoder's word boundaries leave in a gap.
 */
export const MIN_SPOKEN_GAP_FRAMES = 12
/** How a spoken gap is shown in `heard`. */
export const SPOKEN_GAP = '…'

export interface PhraseScore {
  heard: string
  score: number
}

/**
 * @param segmentation the decoder's words and gaps, frames relative to the utterance
 * @param voiced per-frame voicing of the same utterance
 */
export function scorePhrase(
  phrase: readonly string[],
  known: readonly boolean[],
  segmentation: readonly SegmentedWord[],
  voiced: Uint8Array,
): PhraseScore {
  const heard = heardTokens(segmentation, voiced)
  const length = known.filter(Boolean).length
  if (length === 0) return { heard: heard.join(' '), score: 0 }
  const errors = editCost(phrase, known, heard)
  return { heard: heard.join(' '), score: Math.max(0, 1 - errors / length) }
}

/** Recognized words (contractions expanded) with one SPOKEN_GAP per run of gaps between them that holds speech. */
function heardTokens(segmentation: readonly SegmentedWord[], voiced: Uint8Array): string[] {
  const tokens: string[] = []
  let gapVoiced = 0
  for (const { word, startFrame, endFrame } of segmentation) {
    if (isGapWord(word)) {
      for (let f = startFrame; f < endFrame; f++) gapVoiced += voiced[f] ?? 0
      continue
    }
    if (tokens.length > 0 && gapVoiced >= MIN_SPOKEN_GAP_FRAMES) tokens.push(SPOKEN_GAP)
    gapVoiced = 0
    tokens.push(...canonicalWords([word]))
  }
  return tokens
}

/** Levenshtein distance with the costs above: unknown phrase words are free to drop or to match a spoken gap. */
function editCost(phrase: readonly string[], known: readonly boolean[], heard: readonly string[]): number {
  let previous = Array.from({ length: heard.length + 1 }, (_, j) => j)
  for (let i = 1; i <= phrase.length; i++) {
    const dropCost = known[i - 1] ? 1 : 0
    const current = [(previous[0] as number) + dropCost]
    for (let j = 1; j <= heard.length; j++) {
      const said = heard[j - 1]
      const substitution = said === phrase[i - 1] || (!known[i - 1] && said === SPOKEN_GAP) ? 0 : 1
      current.push(
        Math.min(
          (previous[j - 1] as number) + substitution,
          (previous[j] as number) + dropCost,
          (current[j - 1] as number) + 1,
        ),
      )
    }
    previous = current
  }
  return previous[heard.length] as number
}
