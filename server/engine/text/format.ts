/** Light formatting of English text (contract 2.9 rule 3). */

const ellipsis = /[ \t]*(?:\.{3,}|…|\. \. \.)(\s*)/g
const sentenceEndWithoutSpace = /(?<=\p{Ll}\p{Ll}\.|[!?])(?=\p{Lu})/gu
const singleLineBreak = /(?<!\n)\n(?!\n)/g
const sentencePunctuation = /[.!?:;]["')\]]*$/

/**
 * Line breaks inside a sentence become spaces, "end.Next" gets its space back, and an ellipsis becomes a comma: eSpeak
 * pauses briefly at a comma, and plain text keeps the caller's one SSML escape as the only escaping step.
 */
export function formatEnglish(text: string): string {
  return text
    .replace(singleLineBreak, (match, offset: number, whole: string) =>
      sentencePunctuation.test(whole.slice(Math.max(0, offset - 4), offset)) ? match : ' ',
    )
    .replace(sentenceEndWithoutSpace, ' ')
    .replace(ellipsis, (match, space: string, offset: number, whole: string) => {
      const next = whole.charAt(offset + match.length)
      if (offset === 0 || whole.charAt(offset - 1) === '\n') return ''
      if (next === '' || next === '\n' || space.includes('\n')) return `.${space}`
      if (/[.!?,;:]/.test(next)) return ''
      return space === '' && /[\p{L}\d]/u.test(next) ? ', ' : `,${space}`
    })
}
