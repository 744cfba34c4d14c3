import { useVirtualizer } from '@tanstack/react-virtual'
import { memo, useEffect, useMemo, useRef } from 'react'
import { Enriched } from './Enriched.tsx'
import {
  colorOf,
  currentSpeakers,
  NEW_SPEAKER,
  nameOf,
  newSpeakerId,
  reassign,
  regionsOf,
  speakerOf,
  unsplit,
} from './labels.ts'
import { type Overlap, overlapNote, overlapsOf } from './overlaps.ts'
import { type OpenTranscript, useReview } from './review-store.ts'
import { clock, type Entry } from './turns.ts'

/** Rows are measured as they render; this is only the first guess. */
const ESTIMATED_ROW_PX = 76
/** After the reviewer scrolls the list, it stops following the playhead for this long. */
const FOLLOW_PAUSE_MS = 4000
const NO_OVERLAPS: Overlap[] = []

/**
 * The turns, virtualized: only the rows in view (and a few around) exist in the DOM, so a 5,000-turn transcript
 * renders as fast as a short one. Each row reads whether it is the current turn for itself, so the playhead moving on
 * re-renders two rows; the list scrolls to keep the current turn in view unless the reviewer has just scrolled. A row
 * during which another speaker talks at the same time says who and when (overlaps.ts).
 */
export function TurnList({ open }: { open: OpenTranscript }) {
  const scrollRef = useRef<HTMLElement>(null)
  const userScrolledAt = useRef(0)
  const entries = open.rows
  const edits = useReview((s) => s.edits)
  const overlaps = useMemo(
    () =>
      overlapsOf(
        entries.map((e) => ({ start: e.start, end: e.end, speaker: speakerOf(edits, e) })),
        regionsOf(open.transcript.result, open.entries, edits),
      ),
    [entries, open.transcript.result, open.entries, edits],
  )
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 6,
    getItemKey: (i) => {
      const entry = entries[i]
      return entry ? `${entry.index}.${entry.part ?? 0}` : i
    },
  })

  useEffect(
    () =>
      useReview.subscribe((state, previous) => {
        if (state.current === previous.current || state.current === null) return
        if (Date.now() - userScrolledAt.current < FOLLOW_PAUSE_MS) return
        virtualizer.scrollToIndex(state.current, { align: 'auto' })
      }),
    [virtualizer],
  )

  const noteUserScroll = () => {
    userScrolledAt.current = Date.now()
  }

  const items = virtualizer.getVirtualItems()
  return (
    <section
      ref={scrollRef}
      className="turn-scroll"
      aria-label="Turns"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the list scrolls, so the keyboard must be able to reach it
      tabIndex={0}
      onWheel={noteUserScroll}
      onTouchMove={noteUserScroll}
      onKeyDown={(e) => {
        if (['PageUp', 'PageDown', 'Home', 'End'].includes(e.key)) noteUserScroll()
      }}
    >
      <ol
        className="turn-list"
        aria-label={`Turns (${entries.length})`}
        style={{ height: virtualizer.getTotalSize() }}
      >
        {items.map((item) => {
          const entry = entries[item.index] as Entry
          return (
            <TurnRow
              key={item.key}
              entry={entry}
              position={item.index}
              total={entries.length}
              start={item.start}
              measure={virtualizer.measureElement}
              speakers={open.speakers}
              overlaps={overlaps[item.index] ?? NO_OVERLAPS}
            />
          )
        })}
      </ol>
    </section>
  )
}

const TurnRow = memo(function TurnRow({
  entry,
  position,
  total,
  start,
  measure,
  speakers,
  overlaps,
}: {
  entry: Entry
  position: number
  total: number
  start: number
  measure: (el: Element | null) => void
  speakers: string[]
  /** Other speakers talking at the same time as this row's. */
  overlaps: Overlap[]
}) {
  const isCurrent = useReview((s) => s.current === position)
  const edits = useReview((s) => s.edits)
  const playFrom = useReview((s) => s.playFrom)
  const edit = useReview((s) => s.edit)
  const shown = speakerOf(edits, entry)
  const standing = currentSpeakers(speakers, edits)
  if (shown !== null && !standing.includes(shown)) standing.push(shown)
  const timed = entry.start !== null && entry.end !== null
  const part = entry.part ?? 0
  const selectId = `turn-speaker-${entry.index}-${part}`
  const span = `${clock(entry.start)}–${clock(entry.end)}`
  return (
    <li
      ref={measure}
      data-index={position}
      data-turn={entry.index}
      data-part={part > 0 ? part : undefined}
      data-start={entry.start ?? undefined}
      data-overlaps={overlaps.length > 0 ? overlaps.length : undefined}
      className={`turn${isCurrent ? ' turn-current' : ''}`}
      aria-current={isCurrent ? 'true' : undefined}
      aria-setsize={total}
      aria-posinset={position + 1}
      style={{ transform: `translateY(${start}px)`, borderLeftColor: colorOf(speakers, shown) }}
    >
      <div className="turn-head">
        {timed ? (
          <button
            type="button"
            className="turn-seek"
            onClick={() => playFrom(entry.start as number)}
            aria-label={`Play ${span}, ${nameOf(edits, shown)}`}
          >
            {span}
          </button>
        ) : (
          <span className="turn-untimed">No time</span>
        )}
        <label className="visually-hidden" htmlFor={selectId}>
          Speaker of turn {position + 1}
        </label>
        <select
          id={selectId}
          className="turn-speaker"
          value={shown ?? ''}
          onChange={(e) => {
            const value = e.target.value
            edit((ed) =>
              reassign(
                ed,
                entry,
                value === '' ? null : value === NEW_SPEAKER ? newSpeakerId(speakers, ed) : value,
              ),
            )
          }}
          disabled={standing.length === 0}
        >
          {standing.map((id) => (
            <option key={id} value={id}>
              {nameOf(edits, id)}
            </option>
          ))}
          <option value={NEW_SPEAKER}>A new speaker</option>
          <option value="">Unattributed</option>
        </select>
        {part > 0 && (
          <button
            type="button"
            className="turn-join"
            onClick={() => edit((ed) => unsplit(ed, entry))}
            aria-label={`Join to the turn before (turn ${position + 1} into turn ${position})`}
          >
            Join to the turn before
          </button>
        )}
      </div>
      {overlaps.length > 0 && (
        <p className="turn-overlap">
          <span className="turn-overlap-mark" aria-hidden="true">
            ⇄
          </span>{' '}
          {overlapNote(overlaps, (id) => nameOf(edits, id))}
        </p>
      )}
      <p className="turn-text">
        <Enriched text={entry.text} />
      </p>
    </li>
  )
})
