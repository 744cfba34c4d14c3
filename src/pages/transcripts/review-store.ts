import { create } from 'zustand'
import { type TimedWord, tokensOf } from '../../../core/word-alignment.ts'
import { EMPTY_EDITS } from '../../../schema/transcripts.ts'
import { ApiRequestError } from '../../api/http.ts'
import {
  alignTranscriptWords,
  getTranscript,
  type LabelEdits,
  LabelsConflictError,
  type Peaks,
  type SavedTranscript,
  saveTranscriptLabels,
  saveTranscriptPeaks,
} from '../../api/transcripts.ts'
import { peaksOfBlob } from '../../audio/peaks-browser.ts'
import {
  correctedTurns,
  correctRow,
  mergeTexts,
  setTurnTiming,
  timedWords,
  turnsToAlign,
  wordsOf,
} from './corrections.ts'
import {
  allSpeakers,
  canSplit,
  chosenTarget,
  NEW_SPEAKER,
  nameOf,
  newSpeakerId,
  originalSpeakers,
  split,
  splitTargets,
  UNATTRIBUTED_CHOICE,
} from './labels.ts'
import { clock, type Entry, type EntrySource, entriesOf, TimeIndex } from './turns.ts'

/**
 * The transcript open for review: its rows, the label edits with their undo history and saving, waveform peaks, and
 * the playhead. The waveform registers itself as the player, so a turn, a region or a key can seek it.
 *
 * Only what changes rarely lives in fields that whole components read; the playhead's turn (`current`) is read by
 * each row for itself (`useReview((s) => s.current === index)`), so a new turn re-renders two rows, not the list.
 */

export type SaveState = 'saved' | 'saving' | 'error' | 'conflict'

export interface Player {
  seek(seconds: number): void
  play(): void
  pause(): void
  togglePlay(): void
  /** Playback speed, 1 the recording's own; the pitch is kept. */
  setRate(rate: number): void
  skip(seconds: number): void
  currentTime(): number
}

export interface OpenTranscript {
  transcript: SavedTranscript
  /** The service's entries, as the result has them; label edits refer to their indices. */
  entries: Entry[]
  source: EntrySource
  /** The result's timed words (splits and corrections share a turn's words out by them). */
  words: TimedWord[]
  /**
   * What the review shows: the entries with the reviewers' corrected texts, the turns they split cut into their parts
   * (corrections.ts, correctedTurns).
   */
  rows: Entry[]
  /** Over `rows`: positions in it. */
  timeIndex: TimeIndex
  /** Every speaker the result mentions, in the service's order (colours follow it). */
  original: string[]
  /** The original speakers, then the ones reviewers added. */
  speakers: string[]
}

/** `open` with its rows, time index and speakers for `edits`; the same object when they would not change. */
export function arrange(open: OpenTranscript, edits: LabelEdits): OpenTranscript {
  const speakers = allSpeakers(open.original, edits)
  const rows = correctedTurns(open.entries, edits, open.words)
  const sameRows =
    rows.length === open.rows.length &&
    rows.every((r, i) => {
      const o = open.rows[i] as Entry
      return (
        r === o ||
        (r.index === o.index &&
          r.part === o.part &&
          r.start === o.start &&
          r.end === o.end &&
          r.text === o.text)
      )
    })
  const sameSpeakers =
    speakers.length === open.speakers.length && speakers.every((id, i) => open.speakers[i] === id)
  if (sameRows && sameSpeakers) return open
  return {
    ...open,
    rows: sameRows ? open.rows : rows,
    timeIndex: sameRows ? open.timeIndex : new TimeIndex(rows),
    speakers: sameSpeakers ? open.speakers : speakers,
  }
}

/** A row's key, the same across edits: its turn's index and its part. */
export const rowKey = (row: Pick<Entry, 'index' | 'part'>): string => `${row.index}.${row.part ?? 0}`

/** The word being spoken in row `current` at `t`. */
function wordIn(open: OpenTranscript, current: number | null, t: number): number | null {
  const row = current === null ? undefined : open.rows[current]
  return row ? wordAt(wordsOf(row, open.words), t) : null
}

interface ReviewState {
  open: OpenTranscript | null
  loading: string | null
  loadError: string | null
  peaks: Peaks | null
  /** Measuring peaks failed: the waveform decodes the recording itself. */
  peaksFailed: boolean
  edits: LabelEdits
  /** Earlier edits, most recent last. */
  history: LabelEdits[]
  revision: number
  save: SaveState
  saveError: string | null
  /** The row under the playhead (its position in `open.rows`). */
  current: number | null
  /** The word of that row being spoken: the last one started by the playhead (its position in the row's words). */
  currentWord: number | null
  /** Playback speed (PLAYBACK_RATES). */
  rate: number
  /** Whether typing in a turn's text pauses playback (resumed a little after typing stops, 2 s back). */
  pauseWhileTyping: boolean
  /**
   * The row whose text is being corrected (`rowKey`) and what is typed so far: kept here, not in the row, so the draft
   * survives the row scrolling out of the virtualized list.
   */
  editing: { key: string; draft: string } | null
  playing: boolean
  /** The playhead in seconds, updated a few times a second (for the time display). */
  time: number
  /**
   * Who the split control gives the part after the playhead to: a speaker id, NEW_SPEAKER or UNATTRIBUTED_CHOICE;
   * null (or a choice not offered for the row at the playhead) means the first one offered (splitTargets).
   */
  splitTo: string | null
  /** What the last split did, for the split control's status line. */
  splitNote: string
  /** What loading another reviewer's edits after a conflict kept of this reviewer's corrections. */
  mergeNote: string
  /** Corrected turns waiting for forced alignment of their words, and what the last one came to. */
  aligning: number
  timingNote: string

  /** Loads and opens a saved transcript; `peaks` already measured (after an upload) are saved with it. */
  load(id: string, peaks?: Peaks | null): Promise<void>
  close(): void
  edit(change: (edits: LabelEdits) => LabelEdits): void
  /**
   * Splits the row under the playhead there and gives the part after it to the speaker `splitTo` chooses (a new
   * speaker is added for NEW_SPEAKER). Returns where and to whom, or undefined when there is nothing to split here.
   */
  splitAtPlayhead(): { at: number; speaker: string | null } | undefined
  undo(): void
  /** Saves the current edits again (after a failed save). */
  retrySave(): void
  /** Reloads the labels someone else saved (after a conflict). */
  reloadLabels(): Promise<void>
  setPlayback(patch: { time?: number; playing?: boolean }): void
  setPlayer(player: Player | null): void
  seek(seconds: number): void
  /** Seeks to `seconds` and plays from there. */
  playFrom(seconds: number): void
  setSplitTo(choice: string | null): void
  togglePlay(): void
  setRate(rate: number): void
  setPauseWhileTyping(on: boolean): void
  /** Opens row `row`'s text for correcting, or closes it (null). */
  startEditing(row: Entry | null): void
  setDraft(draft: string): void
  /** Keeps the draft as the row's corrected text and closes it. */
  saveText(): void
  /** A key typed into a turn's text: pauses playback when asked to, and resumes it once typing has stopped. */
  typed(): void
  skip(seconds: number): void
  nextTurn(): void
  previousTurn(): void
}

/** The playback speeds offered, slowest first. */
export const PLAYBACK_RATES = [0.5, 0.75, 1, 1.25, 1.5, 2] as const
/** After a pause for typing, playback resumes this long after the last key, this far back. */
export const TYPING_IDLE_MS = 1000
export const TYPING_REWIND_SECONDS = 2

/** The position in `words` (in time order) of the last word started by `t`, or null before the first. */
export function wordAt(words: ReadonlyArray<{ start: number }>, t: number): number | null {
  let lo = 0
  let hi = words.length - 1
  let found: number | null = null
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if ((words[mid] as { start: number }).start <= t + 1e-6) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

let player: Player | null = null
/** Set while playback is paused for typing: when it resumes, and that it goes back first. */
let typingResume: ReturnType<typeof setTimeout> | null = null
/** The edits as the backend last had them (loaded or saved): what a conflict's merge starts from. */
let savedEdits: LabelEdits = EMPTY_EDITS
let saving: Promise<void> | null = null
let saveQueued = false

export const useReview = create<ReviewState>((set, get) => {
  /** The state for new edits: the rows they make (and the row under the playhead in them) with the edits. */
  const withEdits = (edits: LabelEdits): Partial<ReviewState> => {
    const { open, time } = get()
    if (!open) return { edits }
    const next = arrange(open, edits)
    if (next === open) return { edits }
    const t = player?.currentTime() ?? time
    const current = next.timeIndex.at(t)
    return { edits, open: next, current, currentWord: wordIn(next, current, t) }
  }

  /** Resumes playback paused for typing, a little back so the last words are heard again. */
  const resumeAfterTyping = () => {
    if (typingResume) clearTimeout(typingResume)
    typingResume = null
    if (!player) return
    player.seek(Math.max(0, player.currentTime() - TYPING_REWIND_SECONDS))
    player.play()
  }

  /**
   * Forced alignment of corrected turns, one at a time (each is an ASR slot at the service). The times found go into
   * the edits as part of the correction that asked for them — no undo step of their own — and are saved with them.
   * A turn the service cannot place keeps its proportional times, and the page says so.
   */
  const alignQueue: number[] = []
  let alignRunning = false
  const alignNext = async () => {
    if (alignRunning) return
    alignRunning = true
    try {
      for (let index = alignQueue.shift(); index !== undefined; index = alignQueue.shift()) {
        set({ aligning: alignQueue.length + 1 })
        const open = get().open
        const entry = open?.entries.find((e) => e.index === index)
        const text = get().edits.texts?.[String(index)]
        if (!open || !entry || entry.start === null || entry.end === null || text === undefined) continue
        const words = tokensOf(text)
        try {
          const found = await alignTranscriptWords(open.transcript.id, {
            start: entry.start,
            end: entry.end,
            words,
          })
          if (get().open !== open) return
          const spans = found.words.map((w) => [w.start, w.end] as const)
          const after = setTurnTiming(get().edits, index, text, spans)
          if (after !== get().edits) {
            set({ ...withEdits(after), timingNote: '' })
            flush()
          }
        } catch (err) {
          if (get().open !== open) return
          const why =
            err instanceof ApiRequestError && err.status === 422
              ? 'the recognizer could not find them in its audio'
              : 'the service could not align them'
          set({ timingNote: `The new words of turn ${index + 1} are timed by proportion: ${why}.` })
        }
      }
    } finally {
      alignRunning = false
      set({ aligning: alignQueue.length })
    }
  }
  const alignChanged = (before: LabelEdits, after: LabelEdits) => {
    const open = get().open
    if (!open) return
    for (const index of turnsToAlign(before, after, open.entries))
      if (!alignQueue.includes(index)) alignQueue.push(index)
    set({ aligning: alignQueue.length + (alignRunning ? 1 : 0) })
    void alignNext()
  }

  /** Saves the latest edits; one request at a time, and the latest edits win once it returns. */
  const flush = () => {
    if (saving) {
      saveQueued = true
      return
    }
    const open = get().open
    if (!open) return
    const { edits, revision } = get()
    set({ save: 'saving', saveError: null })
    saving = saveTranscriptLabels(open.transcript.id, edits, revision)
      .then((saved) => {
        if (get().open?.transcript.id !== open.transcript.id) return
        savedEdits = edits
        set({ revision: saved.revision, save: 'saved' })
      })
      .catch((err: unknown) => {
        saveQueued = false
        if (err instanceof LabelsConflictError) set({ save: 'conflict', saveError: err.message })
        else set({ save: 'error', saveError: (err as Error).message })
      })
      .finally(() => {
        saving = null
        if (saveQueued) {
          saveQueued = false
          if (get().save !== 'conflict') flush()
        }
      })
  }

  const measurePeaks = async (transcript: SavedTranscript) => {
    try {
      const audio = await fetch(transcript.audio_url, { credentials: 'same-origin' })
      if (!audio.ok) throw new Error(`audio answered ${audio.status}`)
      const peaks = await peaksOfBlob(await audio.blob(), transcript.duration)
      if (get().open?.transcript.id !== transcript.id) return
      set({ peaks })
      await saveTranscriptPeaks(transcript.id, peaks).catch(() => undefined)
    } catch {
      if (get().open?.transcript.id === transcript.id) set({ peaksFailed: true })
    }
  }

  return {
    open: null,
    loading: null,
    loadError: null,
    peaks: null,
    peaksFailed: false,
    edits: EMPTY_EDITS,
    history: [],
    revision: 0,
    save: 'saved',
    saveError: null,
    current: null,
    currentWord: null,
    rate: 1,
    pauseWhileTyping: false,
    editing: null,
    playing: false,
    time: 0,
    splitTo: null,
    splitNote: '',
    mergeNote: '',
    aligning: 0,
    timingNote: '',

    async load(id, peaks) {
      alignQueue.length = 0
      set({ loading: id, loadError: null })
      try {
        const transcript = await getTranscript(id)
        if (get().loading !== id) return
        const { entries, source } = entriesOf(transcript.result)
        const known = transcript.peaks ?? peaks ?? null
        const original = originalSpeakers(transcript.result)
        const base: OpenTranscript = {
          transcript,
          entries,
          source,
          words: timedWords(transcript.result),
          rows: entries,
          timeIndex: new TimeIndex(entries),
          original,
          speakers: original,
        }
        savedEdits = transcript.labels.edits
        set({
          open: arrange(base, transcript.labels.edits),
          loading: null,
          peaks: known,
          peaksFailed: false,
          edits: transcript.labels.edits,
          history: [],
          revision: transcript.labels.revision,
          save: 'saved',
          saveError: null,
          current: null,
          currentWord: null,
          editing: null,
          playing: false,
          time: 0,
          splitTo: null,
          splitNote: '',
          mergeNote: '',
          aligning: 0,
          timingNote: '',
        })
        if (!transcript.peaks && peaks) void saveTranscriptPeaks(id, peaks).catch(() => undefined)
        else if (!known) void measurePeaks(transcript)
      } catch (err) {
        if (get().loading !== id) return
        const message =
          err instanceof ApiRequestError && err.status === 404
            ? 'That transcript no longer exists.'
            : `Could not open the transcript: ${(err as Error).message}`
        set({ loading: null, loadError: message })
      }
    },

    close() {
      alignQueue.length = 0
      if (typingResume) clearTimeout(typingResume)
      typingResume = null
      set({
        open: null,
        peaks: null,
        current: null,
        currentWord: null,
        editing: null,
        playing: false,
        time: 0,
        history: [],
        loadError: null,
      })
    },

    edit(change) {
      const before = get().edits
      const after = change(before)
      if (after === before || JSON.stringify(after) === JSON.stringify(before)) return
      set({ ...withEdits(after), history: [...get().history, before], mergeNote: '' })
      flush()
      alignChanged(before, after)
    },

    splitAtPlayhead() {
      const { open, edits, splitTo } = get()
      if (!open || !player) return undefined
      const at = player.currentTime()
      const position = open.timeIndex.at(at)
      const row = position === null ? undefined : open.rows[position]
      if (!row || position === null || !canSplit(edits, row, at)) {
        set({ splitNote: 'Nothing to split here: move the playhead inside a turn, away from its edges.' })
        return undefined
      }
      const choice = chosenTarget(splitTargets(open.speakers, edits, row), splitTo)
      const speaker =
        choice === NEW_SPEAKER
          ? newSpeakerId(open.speakers, edits)
          : choice === UNATTRIBUTED_CHOICE
            ? null
            : choice
      get().edit((e) => split(e, row, at, speaker))
      set({
        splitNote: `Turn ${position + 1} split at ${clock(at)}; the part after it is now ${nameOf(get().edits, speaker)}'s.`,
      })
      return { at, speaker }
    },

    undo() {
      const history = get().history
      const previous = history.at(-1)
      if (!previous) return
      set({ ...withEdits(previous), history: history.slice(0, -1), splitNote: '' })
      flush()
    },

    retrySave() {
      flush()
    },

    async reloadLabels() {
      const open = get().open
      if (!open) return
      const fresh = await getTranscript(open.transcript.id)
      // This reviewer's corrections of turns the other did not touch are laid on theirs and saved again.
      const merged = mergeTexts(savedEdits, get().edits, fresh.labels.edits)
      savedEdits = fresh.labels.edits
      const turns = (list: number[]) => list.map((i) => i + 1).join(', ')
      set({
        ...withEdits(merged.edits),
        revision: fresh.labels.revision,
        history: [],
        save: 'saved',
        saveError: null,
        mergeNote: [
          merged.kept.length > 0
            ? `Your corrections of turn ${turns(merged.kept)} are kept on top of theirs.`
            : '',
          merged.clashed.length > 0
            ? `They corrected turn ${turns(merged.clashed)} too: theirs is shown; correct it again if need be.`
            : '',
        ]
          .filter(Boolean)
          .join(' '),
      })
      if (merged.kept.length > 0) flush()
    },

    setPlayback({ time, playing }) {
      const state = get()
      const patch: Partial<ReviewState> = {}
      if (playing !== undefined && playing !== state.playing) patch.playing = playing
      if (time !== undefined) {
        const current = state.open ? state.open.timeIndex.at(time) : null
        if (current !== state.current) patch.current = current
        const word = state.open ? wordIn(state.open, current, time) : null
        if (word !== state.currentWord) patch.currentWord = word
        // The clock moves in tenths; finer updates would only re-render it for nothing.
        if (Math.floor(time * 10) !== Math.floor(state.time * 10)) patch.time = time
      }
      if (Object.keys(patch).length > 0) set(patch)
    },

    setPlayer(next) {
      player = next
    },

    seek(seconds) {
      player?.seek(Math.max(0, seconds))
    },

    playFrom(seconds) {
      player?.seek(Math.max(0, seconds))
      player?.play()
    },

    setSplitTo(choice) {
      set({ splitTo: choice })
    },

    togglePlay() {
      if (typingResume && !get().playing) resumeAfterTyping()
      else player?.togglePlay()
    },

    setRate(rate) {
      player?.setRate(rate)
      set({ rate })
    },

    setPauseWhileTyping(on) {
      set({ pauseWhileTyping: on })
    },

    startEditing(row) {
      set({ editing: row ? { key: rowKey(row), draft: row.text } : null })
    },

    setDraft(draft) {
      const editing = get().editing
      if (editing) set({ editing: { ...editing, draft } })
    },

    saveText() {
      const { open, editing } = get()
      const row = open && editing ? open.rows.find((r) => rowKey(r) === editing.key) : undefined
      set({ editing: null })
      if (!open || !editing || !row) return
      get().edit((e) => correctRow(e, open.entries, open.rows, row, editing.draft))
    },

    typed() {
      if (!get().pauseWhileTyping || !player) return
      if (!typingResume) {
        if (!get().playing) return
        player.pause()
      } else clearTimeout(typingResume)
      typingResume = setTimeout(resumeAfterTyping, TYPING_IDLE_MS)
    },

    skip(seconds) {
      player?.skip(seconds)
    },

    nextTurn() {
      const open = get().open
      if (!open || !player) return
      const next = open.timeIndex.next(player.currentTime())
      const start = next === null ? null : open.rows[next]?.start
      if (start !== null && start !== undefined) player.seek(start)
    },

    previousTurn() {
      const open = get().open
      if (!open || !player) return
      const previous = open.timeIndex.previous(player.currentTime(), get().playing ? 1 : 0.05)
      const start = previous === null ? null : open.rows[previous]?.start
      if (start !== null && start !== undefined) player.seek(start)
    },
  }
})
