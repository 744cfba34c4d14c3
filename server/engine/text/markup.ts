/** Finding the inline markup of contract 2.7 so that normalization and segmentation leave it whole. */
import { findMarkup } from '../../../schema/markup.ts'

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
