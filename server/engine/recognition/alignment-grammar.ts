/**
 * The grammar for forced alignment: every token of the given words, in order and required, with optional gaps
 * (silence, noise, unintelligible speech) between, so the decoder's only freedom is where each word starts and ends.
 * A token the dictionary does not hold stands as one stretch of spoken noise, so a name or a new word still gets the
 * time between its neighbours. The decoder's segments are read back to one span per given word.
 */

import type { SegmentedWord } from './decoder-output.ts'
import { isGapWord } from './phrase-grammar.ts'
import { CONTRACTIONS, tokenize } from './phrase-words.ts'
import { FRAMES_PER_SECOND } from './utterances.ts'

/** A dictionary word no token can be (tokens never hold `_`) and no gap is (gaps start with it). */
const UNKNOWN = 'x_unknown'
const GAP_ENTRIES = ['_sil SIL', '_noise +NSN+', '_speech +SPN+']

export interface AlignmentGrammar {
  jsgf: string
  dictionary: string
  /** For each given word, how many decoder words it became (0 for a word with nothing to say, such as "—"). */
  tokensPerWord: number[]
}

/** The tokens one written word is said as: its dictionary spelling, a contraction's expansion, or the unknown unit. */
function tokensOf(word: string, pronunciations: Map<string, string[]>): string[] {
  return tokenize(word).flatMap((token) => {
    if (pronunciations.has(token)) return [token]
    const expansion = CONTRACTIONS.get(token)
    if (expansion?.every((t) => pronunciations.has(t))) return expansion
    return [UNKNOWN]
  })
}

/** Every dictionary word `words` may need looked up. */
export function alignmentLookups(words: readonly string[]): Set<string> {
  const all = new Set<string>()
  for (const token of words.flatMap((w) => tokenize(w))) {
    all.add(token)
    for (const t of CONTRACTIONS.get(token) ?? []) all.add(t)
  }
  return all
}

export function buildAlignmentGrammar(
  words: readonly string[],
  pronunciations: Map<string, string[]>,
): AlignmentGrammar {
  const tokens = words.map((w) => tokensOf(w, pronunciations))
  const sequence = tokens.flat()
  const jsgf = [
    '#JSGF V1.0;',
    'grammar alignment;',
    `<gap> = (${GAP_ENTRIES.map((e) => e.split(' ')[0]).join(' | ')})+;`,
    `public <alignment> = [<gap>] ${sequence.map((t) => `${t} [<gap>]`).join(' ')};`,
    '',
  ].join('\n')
  const used = new Set(sequence)
  const lines = [...pronunciations.entries()].filter(([w]) => used.has(w)).flatMap(([, l]) => l)
  const dictionary = [...new Set(lines), ...GAP_ENTRIES, `${UNKNOWN} +SPN+`, ''].join('\n')
  return { jsgf, dictionary, tokensPerWord: tokens.map((t) => t.length) }
}

/**
 * One span (seconds from the audio's start) per given word from the decoder's segments, or null when the decoder
 * did not follow the grammar to its end (it gives up on audio that cannot hold the words). A word that became no
 * token is given the instant where its neighbours meet.
 */
export function readAlignment(
  grammar: AlignmentGrammar,
  segments: readonly SegmentedWord[],
  offsetFrames = 0,
): Array<{ start: number; end: number }> | null {
  const spoken = segments.filter((s) => !isGapWord(s.word))
  const expected = grammar.tokensPerWord.reduce((a, b) => a + b, 0)
  if (expected === 0 || spoken.length !== expected) return null
  const seconds = (frame: number) => Math.round(((frame + offsetFrames) / FRAMES_PER_SECOND) * 1000) / 1000
  const spans: Array<{ start: number; end: number }> = []
  let next = 0
  let previousEnd = seconds(spoken[0]?.startFrame ?? 0)
  for (const count of grammar.tokensPerWord) {
    const first = spoken[next]
    const last = spoken[next + count - 1]
    if (count === 0 || !first || !last) {
      spans.push({ start: previousEnd, end: previousEnd })
      continue
    }
    spans.push({ start: seconds(first.startFrame), end: seconds(last.endFrame) })
    previousEnd = seconds(last.endFrame)
    next += count
  }
  return spans
}
