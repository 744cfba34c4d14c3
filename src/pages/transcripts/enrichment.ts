import { EMOTION_TAGS, MAX_EMPHASIS_CHARS, SOUND_TAGS } from '../../../schema/index.ts'

/**
 * Enrichment markup in transcript text (contract 6.4: emotion, pause, emphasis; "tag name case varies in output, so match
 * case-insensitively"), split into pieces the page shows as tags. The tag vocabulary is the markup's (contract 2.7):
 * emotions in square brackets, sounds (pause among them) in angle brackets, emphasis in triple parentheses. Either
 * bracket is accepted for a known name, since transcripts are less regular than scripts. Anything else is text.
 */

export type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'emotion'; name: string; raw: string }
  | { kind: 'sound'; name: string; raw: string }
  | { kind: 'emphasis'; text: string; raw: string }

const EMOTIONS = new Set<string>(EMOTION_TAGS)
const SOUNDS = new Set<string>(SOUND_TAGS)

const TAG = new RegExp(
  `\\[\\s*([a-z]+)\\s*\\]|<\\s*([a-z]+)\\s*\\/?>|(?<!\\()\\(\\(\\(([^()\\n]{1,${MAX_EMPHASIS_CHARS}})\\)\\)\\)(?!\\))`,
  'gi',
)

export function enrichmentPieces(text: string): Piece[] {
  const pieces: Piece[] = []
  let last = 0
  const pushText = (to: number) => {
    if (to > last) {
      const prev = pieces.at(-1)
      const chunk = text.slice(last, to)
      if (prev?.kind === 'text') prev.text += chunk
      else pieces.push({ kind: 'text', text: chunk })
    }
  }
  for (const match of text.matchAll(TAG)) {
    const [raw, square, angle, emphasis] = match
    const at = match.index ?? 0
    let piece: Piece | null = null
    if (emphasis !== undefined) piece = { kind: 'emphasis', text: emphasis, raw }
    else {
      const name = (square ?? angle ?? '').toLowerCase()
      if (EMOTIONS.has(name)) piece = { kind: 'emotion', name, raw }
      else if (SOUNDS.has(name)) piece = { kind: 'sound', name, raw }
    }
    if (!piece) continue
    pushText(at)
    pieces.push(piece)
    last = at + raw.length
  }
  pushText(text.length)
  return pieces
}

/** The text without its tags, emphasis kept as plain words: for searching and for screen-reader labels. */
export function plainText(text: string): string {
  return enrichmentPieces(text)
    .map((p) => (p.kind === 'text' || p.kind === 'emphasis' ? p.text : ' '))
    .join('')
    .replace(/\s+/g, ' ')
    .trim()
}
