import { useMemo, useRef } from 'react'
import { type ModelId, type Pronunciation, phonemesHonoured, type ScriptLine } from '../../../schema/index.ts'
import type { PronunciationMatch } from './pronounce.ts'
import { usePronunciations } from './pronunciations-store.ts'
import './pronunciations.css'

/**
 * The editor's marks of the studio's pronunciations: which words of each line are said otherwise, and what they will
 * say. The highlight layer underlines them (it is hidden from assistive technology, like the rest of that layer);
 * the list below the editor says the same in words a screen reader reaches.
 */

export type LineMarks = readonly PronunciationMatch<Pronunciation>[]
export const NO_MARKS: LineMarks = []

export function usePronunciationMarks(lines: readonly ScriptLine[]): Map<string, LineMarks> {
  const lexicon = usePronunciations((s) => s.lexicon)
  // Matches by line text for this lexicon: a keystroke finds again only the line it changed.
  const cache = useRef({ lexicon, byText: new Map<string, LineMarks>() })
  return useMemo(() => {
    if (cache.current.lexicon !== lexicon) cache.current = { lexicon, byText: new Map() }
    const { byText } = cache.current
    const byLine = new Map<string, LineMarks>()
    const seen = new Map<string, LineMarks>()
    for (const line of lines) {
      const found = byText.get(line.text) ?? lexicon.find(line.text)
      seen.set(line.text, found)
      if (found.length > 0) byLine.set(line.id, found)
    }
    cache.current.byText = seen
    return byLine
  }, [lines, lexicon])
}

/** "will say “koh-KOH-roh”", or with phonemes where the model honours them. */
export function willSay(entry: Pronunciation, phonemes: boolean): string {
  return phonemes && entry.phonemes ? `will say /${entry.phonemes}/` : `will say “${entry.say_as}”`
}

const MAX_LISTED = 50

export function PronunciationNotes({
  lines,
  marks,
  model,
}: {
  lines: readonly ScriptLine[]
  marks: Map<string, LineMarks>
  model: ModelId
}) {
  const phonemes = usePronunciations((s) => phonemesHonoured(s.upstream, model))
  const notes = lines.flatMap((line, index) =>
    (marks.get(line.id) ?? NO_MARKS).map((m) => ({
      key: `${line.id}:${m.start}`,
      text: `Line ${index + 1}: “${line.text.slice(m.start, m.end)}” ${willSay(m.entry, phonemes)}`,
    })),
  )
  if (notes.length === 0) return null
  return (
    <details className="script-editor-pronunciations">
      <summary>
        Pronounced by the studio’s pronunciations: {notes.length} {notes.length === 1 ? 'word' : 'words'}
      </summary>
      <ul>
        {notes.slice(0, MAX_LISTED).map((n) => (
          <li key={n.key}>{n.text}</li>
        ))}
      </ul>
      {notes.length > MAX_LISTED && <p>…and {notes.length - MAX_LISTED} more.</p>}
    </details>
  )
}
