import { useVirtualizer } from '@tanstack/react-virtual'
import { Fragment, type KeyboardEvent, memo, useEffect, useMemo, useRef, useState } from 'react'
import { isUnsure, wordsOf } from './corrections.ts'
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
import { type OpenTranscript, rowKey, useReview } from './review-store.ts'
import { clock, type Entry, type ReviewWord } from './turns.ts'

/** Rows are measured as they render; this is only the first guess. */
const ESTIMATED_ROW_PX = 76
/** After the reviewer scrolls the list, it stops following the playhead for this long. */
const FOLLOW_PAUSE_MS = 4000
const NO_OVERLAPS: Overlap[] = []
/** When the reviewer last scrolled the list: the list and the spoken word stop following the playhead for a while. */
let userScrolledAt = 0
const followingPlayhead = () => Date.now() - userScrolledAt >= FOLLOW_PAUSE_MS
/** Characters that may start enrichment markup: only such words go through the tag renderer (fewer DOM nodes). */
const MARKUP = /[[<(]/
/** The one description of a word the recognizer was unsure of, which such words point to. */
export const UNSURE_NOTE_ID = 'unsure-word-note'

/**
 * The turns, virtualized: only the rows in view (and a few around) exist in the DOM, so a 5,000-turn transcript
 * renders as fast as a short one. Each row reads whether it is the current turn for itself, so the playhead moving on
 * re-renders two rows; the list scrolls to keep the current turn in view unless the reviewer has just scrolled. A row
 * during which another speaker talks at the same time says who and when (overlaps.ts).
 */
export function TurnList({ open }: { open: OpenTranscript }) {
  const scrollRef = useRef<HTMLElement>(null)
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
      return entry ? rowKey(entry) : i
    },
  })

  useEffect(
    () =>
      useReview.subscribe((state, previous) => {
        if (state.current === previous.current || state.current === null) return
        // A text being corrected stays where it is.
        if (!followingPlayhead() || state.editing) return
        virtualizer.scrollToIndex(state.current, { align: 'auto' })
      }),
    [virtualizer],
  )

  const noteUserScroll = () => {
    userScrolledAt = Date.now()
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
              words={open.words}
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
  words,
  overlaps,
}: {
  entry: Entry
  position: number
  total: number
  start: number
  measure: (el: Element | null) => void
  speakers: string[]
  /** The result's timed words (OpenTranscript.words). */
  words: OpenTranscript['words']
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
  const editing = useReview((s) => s.editing?.key === rowKey(entry))
  const startEditing = useReview((s) => s.startEditing)
  const editButton = useRef<HTMLButtonElement>(null)
  const wasEditing = useRef(false)
  useEffect(() => {
    // Saving or cancelling gives focus back to the button that opened the text.
    if (wasEditing.current && !editing) editButton.current?.focus()
    wasEditing.current = editing
  }, [editing])
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
        {!editing && (
          <button
            ref={editButton}
            type="button"
            className="turn-edit"
            onClick={() => startEditing(entry)}
            aria-label={`Edit text of turn ${position + 1}`}
          >
            Edit text
          </button>
        )}
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
      {editing ? (
        <TextEditor position={position} />
      ) : timed ? (
        <TurnWords words={wordsOf(entry, words)} position={position} />
      ) : (
        <p className="turn-text">
          <Enriched text={entry.text} />
        </p>
      )}
    </li>
  )
})

/**
 * A row's words, each a button that moves the playhead to its start. One tab stop per row: the arrow keys, Home and
 * End move between its words (a roving tabindex). The word being spoken carries `aria-current="time"` and is kept in
 * view; words the recognizer was unsure of are marked and described as such.
 */
const TurnWords = memo(function TurnWords({ words, position }: { words: ReviewWord[]; position: number }) {
  const currentWord = useReview((s) => (s.current === position ? s.currentWord : null))
  const seek = useReview((s) => s.seek)
  const [focused, setFocused] = useState(0)
  const groupRef = useRef<HTMLDivElement>(null)
  const stop = Math.min(focused, Math.max(0, words.length - 1))

  useEffect(() => {
    if (currentWord === null || !followingPlayhead() || useReview.getState().editing) return
    const el = groupRef.current?.querySelector<HTMLElement>(`[data-word="${currentWord}"]`)
    el?.scrollIntoView?.({ block: 'nearest' })
  }, [currentWord])

  const move = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    const to =
      e.key === 'ArrowRight'
        ? i + 1
        : e.key === 'ArrowLeft'
          ? i - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? words.length - 1
              : null
    if (to === null || e.ctrlKey || e.altKey || e.metaKey) return
    e.preventDefault()
    const next = Math.min(words.length - 1, Math.max(0, to))
    setFocused(next)
    groupRef.current?.querySelector<HTMLElement>(`[data-word="${next}"]`)?.focus()
  }

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset is for form fields; these are words in running text
    <div
      className="turn-text turn-words"
      role="group"
      aria-label={`Words of turn ${position + 1}`}
      ref={groupRef}
    >
      {words.map((w, i) => {
        const unsure = isUnsure(w)
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a word's place in its row is what it is
          <Fragment key={i}>
            {i > 0 && ' '}
            <button
              type="button"
              className={`word${unsure ? ' word-unsure' : ''}${w.edited ? ' word-edited' : ''}`}
              data-word={i}
              data-start={w.start.toFixed(3)}
              tabIndex={i === stop ? 0 : -1}
              aria-current={i === currentWord ? 'time' : undefined}
              aria-describedby={unsure ? UNSURE_NOTE_ID : undefined}
              onClick={() => {
                setFocused(i)
                seek(w.start)
              }}
              onKeyDown={(e) => move(e, i)}
            >
              {MARKUP.test(w.text) ? <Enriched text={w.text} /> : w.text}
            </button>
          </Fragment>
        )
      })}
    </div>
  )
})

/** The row's text as a textbox: Ctrl+Enter (or Save text) keeps it, Escape (or Cancel) leaves it as it was. */
function TextEditor({ position }: { position: number }) {
  const draft = useReview((s) => s.editing?.draft ?? '')
  const { setDraft, saveText, startEditing, typed } = useReview.getState()
  const id = `turn-text-${position}`
  return (
    <div className="turn-editor">
      <label htmlFor={id} className="visually-hidden">
        Text of turn {position + 1}
      </label>
      <textarea
        id={id}
        className="turn-textbox"
        value={draft}
        rows={Math.min(8, Math.max(2, Math.ceil(draft.length / 60)))}
        // biome-ignore lint/a11y/noAutofocus: the reviewer asked to edit this text
        autoFocus
        aria-describedby="turn-editor-keys"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault()
            saveText()
          } else if (e.key === 'Escape') {
            e.preventDefault()
            startEditing(null)
          } else if (!(e.ctrlKey || e.metaKey || e.altKey)) typed()
        }}
      />
      <p className="visually-hidden" id="turn-editor-keys">
        Ctrl+Enter saves, Escape cancels, Ctrl+Space plays or pauses.
      </p>
      <div className="buttons">
        <button type="button" className="primary" onClick={saveText} aria-keyshortcuts="Control+Enter">
          Save text
        </button>
        <button type="button" onClick={() => startEditing(null)} aria-keyshortcuts="Escape">
          Cancel
        </button>
      </div>
    </div>
  )
}
