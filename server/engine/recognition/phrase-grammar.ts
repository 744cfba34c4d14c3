/**
 * The grammar for a known-phrase check. The decoder may only output the phrase's words, in order, each of them
 * optional, with "gaps" anywhere: silence, noise or unintelligible speech, the model's own filler units (SIL, +NSN+,
 * +SPN+). A recording of the phrase comes out as the phrase; a different sentence comes out as a few of the phrase's
 * short words with gaps between, because a wrong word fits worse than a gap. The decoder is told not to insert its
 * fillers by itself (`-fsgusefiller no`), so that every gap appears in the result with its time.
 */
import { readFile } from 'node:fs/promises'
import { CONTRACTIONS } from './phrase-words.ts'

/** Dictionary entries of the gap units; names no phrase token can take (tokens never contain `_`). */
const GAP_ENTRIES = ['_sil SIL', '_noise +NSN+', '_speech +SPN+']
export const isGapWord = (word: string) => word.startsWith('_')

export interface PhraseGrammar {
  /** JSGF source (`-jsgf`). */
  jsgf: string
  /** A dictionary holding only the phrase's words and the gap units (`-dict`); loads in no time. */
  dictionary: string
  /** For each canonical word of the phrase, whether the dictionary knows it; an unknown word can only be a gap. */
  known: boolean[]
}

/**
 * The dictionary lines (all pronunciation variants, `word(2)`…) of the words asked for, read from the CMU
 * dictionary. Words it does not hold are absent from the result.
 */
export async function lookUpPronunciations(
  dictionaryPath: string,
  words: Iterable<string>,
): Promise<Map<string, string[]>> {
  const wanted = new Set(words)
  const found = new Map<string, string[]>()
  for (const line of (await readFile(dictionaryPath, 'utf8')).split('\n')) {
    const head = line.slice(0, line.indexOf(' '))
    const word = head.replace(/\(\d+\)$/, '')
    if (!wanted.has(word)) continue
    const lines = found.get(word) ?? []
    lines.push(line.trim())
    found.set(word, lines)
  }
  return found
}

export function buildPhraseGrammar(
  words: readonly string[],
  pronunciations: Map<string, string[]>,
): PhraseGrammar {
  const known = words.map((w) => pronunciations.has(w))
  const contractionsOf = contractedForms(pronunciations)
  const slots: string[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string
    const next = words[i + 1]
    const contracted = next === undefined ? [] : (contractionsOf.get(`${word} ${next}`) ?? [])
    if (contracted.length > 0 && known[i] && known[i + 1]) {
      // Either the two words (each optional, as everywhere) or one of their contractions.
      slots.push(`( [${word}] [<gap>] [${next}] | ${contracted.join(' | ')} ) [<gap>]`)
      i++
    } else if (known[i]) {
      slots.push(`[${word}] [<gap>]`)
    }
  }
  const jsgf = [
    '#JSGF V1.0;',
    'grammar phrase;',
    `<gap> = (${GAP_ENTRIES.map((e) => e.split(' ')[0]).join(' | ')})+;`,
    `public <phrase> = [<gap>] ${slots.join(' ')};`,
    '',
  ].join('\n')
  const dictionary = [...new Set([...pronunciations.values()].flat()), ...GAP_ENTRIES, ''].join('\n')
  return { jsgf, dictionary, known }
}

/** "i am" → ["i'm"], for the contractions whose pronunciation is known. */
function contractedForms(pronunciations: Map<string, string[]>): Map<string, string[]> {
  const forms = new Map<string, string[]>()
  for (const [contraction, expansion] of CONTRACTIONS) {
    if (!pronunciations.has(contraction)) continue
    const key = expansion.join(' ')
    forms.set(key, [...(forms.get(key) ?? []), contraction])
  }
  return forms
}

/** Every word the dictionary must be searched for: the phrase's words and their possible contractions. */
export function wordsToLookUp(words: readonly string[]): Set<string> {
  const all = new Set(words)
  for (const [contraction, expansion] of CONTRACTIONS) {
    if (words.some((w, i) => w === expansion[0] && words[i + 1] === expansion[1])) all.add(contraction)
  }
  return all
}
