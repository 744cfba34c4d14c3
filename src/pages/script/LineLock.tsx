import type { ScriptLine } from '../../../schema/index.ts'
import { isLocked } from './take-currency.ts'

/**
 * "Lock line" / "Unlock line" for the line with the caret. A locked line keeps its chosen take: it is never made
 * again (not by a play, the changed lines or the final render) and its text is read-only until it is unlocked.
 */
export function LineLock({
  line,
  hasChosenTake,
  onChange,
}: {
  line: ScriptLine
  hasChosenTake: boolean
  onChange: (locked: boolean) => void
}) {
  const locked = isLocked(line)
  return (
    <div className="line-lock">
      <button type="button" onClick={() => onChange(!locked)} aria-describedby="line-lock-note">
        {locked ? 'Unlock line' : 'Lock line'}
      </button>
      <p id="line-lock-note" className="hint" role="status">
        {locked
          ? hasChosenTake
            ? 'Locked: its chosen take is kept and never made again; unlock it to edit its text.'
            : 'Locked without a chosen take: nothing of it is rendered or downloaded until you unlock it and star a take.'
          : 'Lock the line to keep its chosen take as it is.'}
      </p>
    </div>
  )
}
