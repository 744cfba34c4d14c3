import './subtitles.css'
import { useId, useMemo, useState } from 'react'
import { type CueProblem, checkCues, type SubtitleCue } from '../../../core/subtitle-cues.ts'
import { clock } from './turns.ts'

/** Seconds as the page writes a short span: `0.6 s`, `8.2 s`; under a second and a half in milliseconds. */
const span = (seconds: number) =>
  Math.abs(seconds) < 1.5 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`

/** Why a cue breaks a rule, in the reviewer's words, with the limit. */
export function cueProblemText(p: CueProblem): string {
  switch (p.rule) {
    case 'lines':
      return `${p.value} lines (at most ${p.limit})`
    case 'line-length':
      return `line ${p.line ?? 1} has ${p.value} characters (at most ${p.limit})`
    case 'short':
      return `shown ${span(p.value)} (at least ${p.limit} s): the next cue follows too soon`
    case 'long':
      return `shown ${span(p.value)} (at most ${p.limit} s)`
    case 'speed':
      return `${Math.round(p.value)} characters a second (at most ${p.limit}): the speech is faster than it can be read`
    case 'gap':
      return p.value < 0
        ? `overlaps the next cue by ${span(-p.value)}: two people at once`
        : `${span(p.value)} before the next cue (at least ${span(p.limit)})`
  }
}

/** Cues rendered at first, and added by each "Show more cues": a long recording has thousands. */
export const CUES_PER_PAGE = 200

/**
 * The subtitle cues the exports would write (SRT's, where the speaker's name counts in the line), each flagged with
 * the rules it breaks and why (core/subtitle-cues.ts, checkCues); a cue's time moves the playhead to it. Only the
 * flagged ones are listed until the reviewer asks for all.
 */
export function SubtitlesPanel({
  cues,
  onSeek,
}: {
  cues: readonly SubtitleCue[]
  onSeek: (seconds: number) => void
}) {
  const id = useId()
  const [onlyFlagged, setOnlyFlagged] = useState(true)
  const [limit, setLimit] = useState(CUES_PER_PAGE)
  const problems = useMemo(() => checkCues(cues), [cues])
  const flagged = problems.filter((p) => p.length > 0).length
  const shown = cues.map((cue, i) => ({ cue, i, problems: problems[i] ?? [] }))
  const matching = onlyFlagged ? shown.filter((c) => c.problems.length > 0) : shown
  const listed = matching.slice(0, limit)
  return (
    <section aria-labelledby={`${id}-heading`} className="subtitles">
      <h3 id={`${id}-heading`}>Subtitles</h3>
      <p aria-live="polite">
        {cues.length === 0
          ? 'No cues: the transcript has no text.'
          : flagged === 0
            ? `${cues.length} ${cues.length === 1 ? 'cue' : 'cues'}, all within the rules.`
            : `${cues.length} cues; ${flagged} ${flagged === 1 ? 'breaks' : 'break'} a rule.`}
      </p>
      <label className="check">
        <input
          type="checkbox"
          checked={onlyFlagged}
          onChange={(e) => {
            setOnlyFlagged(e.target.checked)
            setLimit(CUES_PER_PAGE)
          }}
        />
        Only cues that break a rule
      </label>
      <ol className="cues">
        {listed.map(({ cue, i, problems: ps }) => (
          <li key={i} value={i + 1} data-flagged={ps.length > 0 ? 'true' : undefined}>
            <button
              type="button"
              className="cue-time"
              // The visible times are part of the name, as speech input expects (WCAG 2.5.3).
              aria-label={`Go to cue ${i + 1}, ${clock(cue.start)}–${clock(cue.end)}`}
              onClick={() => onSeek(cue.start)}
            >
              {clock(cue.start)}–{clock(cue.end)}
            </button>
            <span className="cue-lines">
              {cue.lines.map((line, k) => (
                // Lines are positional: the same text may well appear twice.
                // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one cue, in order
                <span key={k} className="cue-line">
                  {line}
                </span>
              ))}
            </span>
            {ps.length > 0 && (
              <ul className="cue-problems" aria-label={`Cue ${i + 1} breaks`}>
                {ps.map((p) => (
                  <li key={`${p.rule}-${p.line ?? 0}`}>{cueProblemText(p)}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {matching.length > listed.length && (
        <button type="button" onClick={() => setLimit((n) => n + CUES_PER_PAGE)}>
          Show more cues ({matching.length - listed.length} not shown)
        </button>
      )}
    </section>
  )
}
