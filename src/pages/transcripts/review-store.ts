import { create } from 'zustand'
import { EMPTY_EDITS } from '../../../schema/transcripts.ts'
import {
  ApiRequestError,
  getTranscript,
  type LabelEdits,
  LabelsConflictError,
  type Peaks,
  type SavedTranscript,
  saveTranscriptLabels,
  saveTranscriptPeaks,
} from '../../api/client.ts'
import { peaksOfBlob } from '../../audio/peaks-browser.ts'
import { originalSpeakers } from './labels.ts'
import { type Entry, type EntrySource, entriesOf, TimeIndex } from './turns.ts'

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
  togglePlay(): void
  skip(seconds: number): void
  currentTime(): number
}

export interface OpenTranscript {
  transcript: SavedTranscript
  entries: Entry[]
  source: EntrySource
  timeIndex: TimeIndex
  /** Every speaker the result mentions, in the service's order (colours follow it). */
  speakers: string[]
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
  /** The entry under the playhead. */
  current: number | null
  playing: boolean
  /** The playhead in seconds, updated a few times a second (for the time display). */
  time: number

  /** Loads and opens a saved transcript; `peaks` already measured (after an upload) are saved with it. */
  load(id: string, peaks?: Peaks | null): Promise<void>
  close(): void
  edit(change: (edits: LabelEdits) => LabelEdits): void
  undo(): void
  /** Saves the current edits again (after a failed save). */
  retrySave(): void
  /** Reloads the labels someone else saved (after a conflict). */
  reloadLabels(): Promise<void>
  setPlayback(patch: { time?: number; playing?: boolean }): void
  setPlayer(player: Player | null): void
  seek(seconds: number): void
  togglePlay(): void
  skip(seconds: number): void
  nextTurn(): void
  previousTurn(): void
}

let player: Player | null = null
let saving: Promise<void> | null = null
let saveQueued = false

export const useReview = create<ReviewState>((set, get) => {
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
    playing: false,
    time: 0,

    async load(id, peaks) {
      set({ loading: id, loadError: null })
      try {
        const transcript = await getTranscript(id)
        if (get().loading !== id) return
        const { entries, source } = entriesOf(transcript.result)
        const known = transcript.peaks ?? peaks ?? null
        set({
          open: {
            transcript,
            entries,
            source,
            timeIndex: new TimeIndex(entries),
            speakers: originalSpeakers(transcript.result),
          },
          loading: null,
          peaks: known,
          peaksFailed: false,
          edits: transcript.labels.edits,
          history: [],
          revision: transcript.labels.revision,
          save: 'saved',
          saveError: null,
          current: null,
          playing: false,
          time: 0,
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
      set({ open: null, peaks: null, current: null, playing: false, time: 0, history: [], loadError: null })
    },

    edit(change) {
      const before = get().edits
      const after = change(before)
      if (after === before || JSON.stringify(after) === JSON.stringify(before)) return
      set({ edits: after, history: [...get().history, before] })
      flush()
    },

    undo() {
      const history = get().history
      const previous = history.at(-1)
      if (!previous) return
      set({ edits: previous, history: history.slice(0, -1) })
      flush()
    },

    retrySave() {
      flush()
    },

    async reloadLabels() {
      const open = get().open
      if (!open) return
      const fresh = await getTranscript(open.transcript.id)
      set({
        edits: fresh.labels.edits,
        revision: fresh.labels.revision,
        history: [],
        save: 'saved',
        saveError: null,
      })
    },

    setPlayback({ time, playing }) {
      const state = get()
      const patch: Partial<ReviewState> = {}
      if (playing !== undefined && playing !== state.playing) patch.playing = playing
      if (time !== undefined) {
        const current = state.open ? state.open.timeIndex.at(time) : null
        if (current !== state.current) patch.current = current
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

    togglePlay() {
      player?.togglePlay()
    },

    skip(seconds) {
      player?.skip(seconds)
    },

    nextTurn() {
      const open = get().open
      if (!open || !player) return
      const next = open.timeIndex.next(player.currentTime())
      const start = next === null ? null : open.entries[next]?.start
      if (start !== null && start !== undefined) player.seek(start)
    },

    previousTurn() {
      const open = get().open
      if (!open || !player) return
      const previous = open.timeIndex.previous(player.currentTime(), get().playing ? 1 : 0.05)
      const start = previous === null ? null : open.entries[previous]?.start
      if (start !== null && start !== undefined) player.seek(start)
    },
  }
})
