/** Finding the inline markup of spec 2.7 so that normalization and segmentation leave it whole. */
import { EMOTION_TAGS, MAX_EMPHASIS_CHARS, SOUND_TAGS } from '../../../schema/markup.ts'

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

// Same shapes as schema/markup.ts, which exports only a yes/no test.
const markupRe = new RegExp(
  [
    `\\[(?:${EMOTION_TAGS.join('|')})\\]`,
    `<(?:${SOUND_TAGS.join('|')})>`,
    `(?<!\\()\\(\\(\\(([^()\\n]{1,${MAX_EMPHASIS_CHARS}})\\)\\)\\)(?!\\))`,
  ].join('|'),
  'gi',
)

export function splitMarkup(text: string): Piece[] {
  const pieces: Piece[] = []
  let last = 0
  for (const match of text.matchAll(markupRe)) {
    if (match.index > last) pieces.push({ kind: 'text', text: text.slice(last, match.index) })
    const inner = match[1]
    pieces.push(inner === undefined ? { kind: 'tag', text: match[0] } : { kind: 'emphasis', text: inner })
    last = match.index + match[0].length
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) })
  return pieces
}

export function markupSpans(text: string): Span[] {
  return [...text.matchAll(markupRe)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    emphasis: m[1] !== undefined,
  }))
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
