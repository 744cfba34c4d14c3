import type { ScriptLine } from '../../../schema/index.ts'
import type { Take } from './takes-store.ts'

/**
 * Whether a line's takes are current: a take remembers the text it was made from, so after an edit its old takes
 * say so, and the changed lines (those with no take of their current text) are the only ones made again by "Play
 * changed lines" and "Render changed lines". A locked line keeps its chosen take and is never made again.
 */

export const TEXT_CHANGED = 'Text changed since this take'

/** The take was made from other text than the line holds now (an edit since, or a selection of it). */
export const textChanged = (take: Pick<Take, 'text'>, line: Pick<ScriptLine, 'text'>): boolean =>
  take.text !== line.text

export const isLocked = (line: Pick<ScriptLine, 'locked'>): boolean => line.locked === true

/**
 * A take that stands for the line's current text: made from it, not broken off, audio not erased. One still
 * recording counts, so pressing a button twice does not ask for the same line twice.
 */
function coversText(take: Take, text: string): boolean {
  return take.text === text && take.status !== 'incomplete' && take.erased === null
}

/**
 * The lines to make again, in script order: not locked, not empty, and without a take of their current text.
 * Takes of other scripts' lines in the store never match (line ids are unique to their script).
 */
export function changedLines<L extends ScriptLine>(lines: readonly L[], takes: readonly Take[]): L[] {
  // One pass over the takes: the page asks again whenever a take grows during a play.
  const covered = new Set(takes.filter((t) => coversText(t, t.text)).map((t) => `${t.lineId}\n${t.text}`))
  return lines.filter(
    (line) => !isLocked(line) && line.text.trim() !== '' && !covered.has(`${line.id}\n${line.text}`),
  )
}

/**
 * The first locked line an edit would change or remove (its text is read-only until unlocked), with its number;
 * null when the edit leaves every locked line as it was.
 */
export function lockedLineEdited(
  before: readonly ScriptLine[],
  after: readonly ScriptLine[],
): { line: ScriptLine; number: number } | null {
  const next = new Map(after.map((l) => [l.id, l]))
  for (const [i, line] of before.entries()) {
    if (!isLocked(line)) continue
    if (next.get(line.id)?.text !== line.text) return { line, number: i + 1 }
  }
  return null
}
