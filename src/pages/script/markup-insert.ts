/** Text edits behind the editor's markup buttons and shortcut: what the text becomes and where the selection goes. */

export interface TextEdit {
  text: string
  selectionStart: number
  selectionEnd: number
}

/**
 * Puts a tag at the start of the selection (a tag goes before the words it colours, not in place of them), with a
 * space on each side where it would touch a word. The caret ends up after the tag.
 */
export function insertTag(text: string, start: number, tag: string): TextEdit {
  const before = text.slice(0, start)
  const after = text.slice(start)
  const lead = before === '' || /[\s([<]$/.test(before) ? '' : ' '
  const trail = after === '' || /^[\s.,;:!?…)\]>]/.test(after) ? '' : ' '
  const inserted = `${lead}${tag}${trail}`
  const caret = start + inserted.length
  return { text: before + inserted + after, selectionStart: caret, selectionEnd: caret }
}

/**
 * Wraps the selected words in emphasis, leaving spaces at the selection's edges outside, and keeps them selected;
 * words already wrapped lose their emphasis again. With nothing selected, opens an empty emphasis around the caret.
 */
export function toggleEmphasis(text: string, start: number, end: number): TextEdit {
  const selected = text.slice(start, end)
  const from = start + (selected.length - selected.trimStart().length)
  const to = Math.max(from, end - (selected.length - selected.trimEnd().length))
  if (from >= 3 && text.slice(from - 3, from) === '(((' && text.slice(to, to + 3) === ')))')
    return {
      text: text.slice(0, from - 3) + text.slice(from, to) + text.slice(to + 3),
      selectionStart: from - 3,
      selectionEnd: to - 3,
    }
  return {
    text: `${text.slice(0, from)}(((${text.slice(from, to)})))${text.slice(to)}`,
    selectionStart: from + 3,
    selectionEnd: to + 3,
  }
}
