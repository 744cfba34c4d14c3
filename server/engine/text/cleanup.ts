/** Character and punctuation cleanup, the only normalization every language gets (contract 2.9 rule 2). */

// Invisible characters that carry nothing for speech. ZWJ and ZWNJ are kept: they shape Indic, Arabic and Persian
// script and emoji sequences.
const invisible = /[\u00AD\u200B\u2060\uFEFF]/g

/** An en dash joins numbers ("10–20") or words ("Paris–London"); any other dash is a pause, read as a comma. */
function readDash(dash: string, offset: number, whole: string): string {
  const before = whole.charAt(offset - 1)
  const after = whole.charAt(offset + dash.length)
  if (dash.trim() === '–' && /\d/.test(before) && /\d/.test(after)) return '-'
  if (dash === '–' && /\p{L}/u.test(before) && /\p{L}/u.test(after)) return '-'
  return ', '
}

export function cleanText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(invisible, '')
    .replace(/\p{Cc}/gu, (c) => (c === '\n' ? c : ' '))
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″«»]/g, '"')
    .replace(/[\u2010\u2011\u2212]/g, '-')
    .replace(/\s*[–—―]+\s*/g, readDash)
    .replace(/([!?])\1+/g, '$1')
    .replace(/,\s*(?=[,.!?;:])/g, '')
    .replace(/[^\S\n]{2,}|[^\S \n]/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^, |(?<=\n), /g, '')
    .trim()
}
