/**
 * The words of a known phrase as the recognizer spells them: the project's English normalization first (numbers,
 * dates, money, abbreviations become words, as a reader would say them), then lower case, punctuation dropped and
 * contractions expanded, so that "I'm" and "I am" compare equal on both sides.
 */
import { normalizeText } from '../text/index.ts'

/** Contractions in the CMU dictionary and what they stand for; a reader may say either form. */
export const CONTRACTIONS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    "i'm": ['i', 'am'],
    "i've": ['i', 'have'],
    "i'll": ['i', 'will'],
    "i'd": ['i', 'would'],
    "you're": ['you', 'are'],
    "we're": ['we', 'are'],
    "they're": ['they', 'are'],
    "it's": ['it', 'is'],
    "that's": ['that', 'is'],
    "let's": ['let', 'us'],
    "don't": ['do', 'not'],
    "doesn't": ['does', 'not'],
    "didn't": ['did', 'not'],
    "isn't": ['is', 'not'],
    "aren't": ['are', 'not'],
    "can't": ['can', 'not'],
    cannot: ['can', 'not'],
    "won't": ['will', 'not'],
  }),
)

/** Canonical words of a phrase: what the recognizer output is compared with. */
export function phraseWords(phrase: string): string[] {
  return canonicalWords(tokenize(normalizeText(phrase, { voiceLanguage: 'en-US' })))
}

/** Lower-case word tokens; apostrophes stay inside words ("its" and "it's" differ), everything else separates. */
export function tokenize(text: string): string[] {
  const words = text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .match(/[\p{L}\p{N}']+/gu)
  return (words ?? []).map((w) => w.replace(/^'+|'+$/g, '')).filter((w) => w.length > 0)
}

export function canonicalWords(words: readonly string[]): string[] {
  return words.flatMap((w) => CONTRACTIONS.get(w) ?? [w])
}
