/** Finding the inline markup of contract 2.7 so that normalization and segmentation leave it whole. */
import { findMarkup, MAX_EMPHASIS_CHARS } from '../../../schema/markup.ts'

export interface Piece {
  kind: 'text' | 'tag' | 'emphasis'
  /** For emphasis, the words between the parentheses. */
  text: string
}

export interface Span {
  start: number
  end: number
  emphasis: boolean
}

export function splitMarkup(text: string): Piece[] {
  const pieces: Piece[] = []
  let last = 0
  for (const match of findMarkup(text)) {
    if (match.start > last) pieces.push({ kind: 'text', text: text.slice(last, match.start) })
    pieces.push({ kind: match.kind === 'emphasis' ? 'emphasis' : 'tag', text: match.text })
    last = match.end
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) })
  return pieces
}

export function markupSpans(text: string): Span[] {
  return findMarkup(text).map((m) => ({ start: m.start, end: m.end, emphasis: m.kind === 'emphasis' }))
}

/**
 * Wraps words in emphasis again. Expansion can lengthen them ("(((1,234,567)))"); past the 80-character limit the
 * model would read the parentheses aloud, so a long phrase becomes consecutive emphasized runs.
 */
export function emphasize(words: string): string {
  if (words.length <= MAX_EMPHASIS_CHARS) return `(((${words})))`
  const runs: string[] = []
  let run = ''
  for (const word of words.trim().split(/\s+/)) {
    if (run && run.length + 1 + word.length > MAX_EMPHASIS_CHARS) {
      runs.push(run)
      run = word
    } else run = run ? `${run} ${word}` : word
  }
  runs.push(run)
  return runs.map((r) => `(((${r})))`).join(' ')
}
