/**
 * The local service's phoneme form (docs/markup.md): `[[IPA]]` in the input is said as those phonemes by every model
 * of this service, the IPA turned into eSpeak NG's mnemonics here, before normalization, and left alone by it. The
 * contract has no phoneme input: a client sends this form only to a service it knows honours it (the studio asks
 * schema/pronunciations.ts `PHONEME_INPUT`).
 */
import { ipaToEspeak } from '../espeak/ipa.ts'

export const MAX_PHONEME_SPAN_CHARS = 200
const IPA_SPAN = new RegExp(`\\[\\[([^\\[\\]\\n]{1,${MAX_PHONEME_SPAN_CHARS}})\\]\\]`, 'g')
/** A span after conversion: eSpeak's mnemonics are ASCII without brackets. */
const MNEMONIC_SPAN = /(\[\[[^[\]\n]*\]\])/

/**
 * Each `[[IPA]]` as `[[mnemonics]]`, with a space either side: eSpeak reads the markup that follows `]]` at once as
 * text. A span with nothing of the table in it is dropped rather than spoken as brackets.
 */
export function phonemesForEspeak(text: string): string {
  if (!text.includes('[[')) return text
  return text.replace(IPA_SPAN, (_whole, ipa: string) => {
    const mnemonics = ipaToEspeak(ipa)
    return mnemonics ? ` [[${mnemonics}]] ` : ' '
  })
}

/** `expand` applied to the text between phoneme spans, the spans kept as they are (digits in them are phonemes). */
export function outsidePhonemes(text: string, expand: (text: string) => string): string {
  if (!text.includes('[[')) return expand(text)
  return text
    .split(MNEMONIC_SPAN)
    .map((part, i) => (i % 2 === 1 ? part : expand(part)))
    .join('')
}
