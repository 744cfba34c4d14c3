/**
 * Text normalization for synthesis (contract 2.9). Every language gets character and punctuation cleanup, long digit
 * runs spelled out digit by digit and runs the engine would cut short made into words (words.ts); English text also
 * gets light formatting and written-to-spoken expansion. Inline markup (contract 2.7) and phoneme spans (`[[IPA]]`,
 * phonemes.ts) pass through untouched, and the words inside emphasis are expanded like any other.
 *
 * The result is plain text: pauses are commas, never SSML, so the caller escapes it for eSpeak exactly once
 * (`escapeForSsml` in espeak/text.ts), as it does today.
 */

import { emphasize } from '../../../schema/markup.ts'
import { cleanText } from './cleanup.ts'
import { expandEnglish } from './english.ts'
import { formatEnglish } from './format.ts'
import { shouldExpandEnglish } from './language.ts'
import { splitMarkup } from './markup.ts'
import { spaceDigitRuns } from './numbers.ts'
import { outsidePhonemes, phonemesForEspeak } from './phonemes.ts'
import { speakableWords } from './words.ts'

export interface NormalizeOptions {
  /** BCP 47 language of the voice, such as "en-US", "de" or "zh-CN". */
  voiceLanguage: string
}

export function normalizeText(text: string, opts: NormalizeOptions): string {
  const clean = cleanText(phonemesForEspeak(text))
  const english = shouldExpandEnglish(clean, opts.voiceLanguage)
  // Phoneme spans (phonemes.ts) go to eSpeak as they are: no expansion, and never cut into words.
  const words = (expand: (t: string) => string) => (t: string) =>
    outsidePhonemes(t, (x) => speakableWords(expand(x)))
  return splitMarkup(english ? formatEnglish(clean) : clean)
    .map((piece) => {
      if (piece.kind === 'tag') return piece.text
      if (!english)
        return piece.kind === 'emphasis' ? emphasize(piece.text) : words(spaceDigitRuns)(piece.text)
      if (piece.kind === 'emphasis') return emphasize(outsidePhonemes(piece.text, expandEnglish))
      return words(expandEnglish)(piece.text)
    })
    .join('')
    .trim()
}
