import type { RecognizedWord } from './recognizer.ts'

/** A stretch of transcript: what a subtitle cue or a transcript paragraph line shows. */
export interface TranscriptSegment {
  start: number
  end: number
  /** The words joined by single spaces. */
  text: string
  words: RecognizedWord[]
}

export interface GroupOptions {
  /** A pause at least this long between two words starts a new segment (default 0.5 s). */
  maxPauseSeconds?: number
  /** A segment never runs longer than this, unless a single word does (default 15 s). */
  maxSegmentSeconds?: number
}

/** Groups words, in time order, into segments split at pauses and at the maximum length. */
export function groupSegments(
  words: readonly RecognizedWord[],
  opts: GroupOptions = {},
): TranscriptSegment[] {
  const maxPause = opts.maxPauseSeconds ?? 0.5
  const maxLength = opts.maxSegmentSeconds ?? 15
  const groups: RecognizedWord[][] = []
  let current: RecognizedWord[] = []
  for (const word of words) {
    const first = current[0]
    const last = current.at(-1)
    if (first && last && (word.start - last.end >= maxPause || word.end - first.start > maxLength)) {
      groups.push(current)
      current = []
    }
    current.push(word)
  }
  if (current.length > 0) groups.push(current)
  return groups.map((group) => ({
    start: (group[0] as RecognizedWord).start,
    end: (group.at(-1) as RecognizedWord).end,
    text: group.map((w) => w.text).join(' '),
    words: group,
  }))
}
