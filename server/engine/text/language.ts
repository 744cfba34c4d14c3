/** Whether English expansion applies (contract 2.9 rule 1): English voices, and other voices reading English text. */
import { detect } from 'tinyld'
import { splitMarkup } from './markup.ts'

/** Enough text for a confident guess; detecting on all of a 40,000-character input would only cost time. */
const SAMPLE_CHARS = 1000

function isEnglishVoice(voiceLanguage: string): boolean {
  return /^en(?:$|[-_])/i.test(voiceLanguage)
}

export function shouldExpandEnglish(text: string, voiceLanguage: string): boolean {
  const sample = splitMarkup(text.slice(0, SAMPLE_CHARS))
    .filter((p) => p.kind !== 'tag')
    .map((p) => p.text)
    .join(' ')
  const letters = sample.match(/\p{L}/gu)?.length ?? 0
  const latin = sample.match(/\p{Script=Latin}/gu)?.length ?? 0
  // Rule 2 wins over the voice: Arabic, Cyrillic, Devanagari or CJK text is never expanded, even by an English voice.
  if (latin * 2 < letters) return false
  if (isEnglishVoice(voiceLanguage)) return true
  return letters > 0 && detect(sample) === 'en'
}
