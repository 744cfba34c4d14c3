import { create } from 'zustand'
import {
  type ErasureReason,
  SAMPLE_RATE,
  type SpeechRequest,
  type StoredTake,
} from '../../../schema/index.ts'

/**
 * Every generation of a line is a take, held here with its audio for replay, comparison and download. A designer
 * stars the one take per line that goes into the script's download. This store is the page's view; the backend keeps
 * the history (take-history.ts saves each finished take and sends renames, stars and deletions there).
 */

export type TakeStatus = 'recording' | 'complete' | 'incomplete'

export interface Take {
  id: string
  lineId: string
  /** The line's text when the take was made. */
  text: string
  /** The settings it was made with. */
  request: Omit<SpeechRequest, 'input'>
  createdAt: number
  /** 24 kHz mono PCM16. */
  pcm: Int16Array
  durationMs: number
  /** A broken stream stays incomplete; it is never continued. */
  status: TakeStatus
  starred: boolean
  /** Made by the final render (`stream: false`). */
  final: boolean
  /**
   * Play → first audible sample, the same measurement the Playback panel shows; only the take that started a play
   * has one (the lines after it follow without a gap).
   */
  timeToFirstAudioMs: number | null
  /** The designer's name for it; null shows its number. */
  name: string | null
  /**
   * Integrated loudness (BS.1770) in LUFS as the backend measured it when storing the take; null until then, or
   * when it could not (the page then measures the audio itself: take-loudness.ts).
   */
  loudnessLufs: number | null
  /** The backend's id once stored; null while it is being saved, or when saving failed. */
  storedId: string | null
  /** Made in this tab, or loaded from the backend (whose audio arrives after its details). */
  origin: 'page' | 'backend'
  /** False while a stored take's audio is still being fetched. */
  audioReady: boolean
  /** Why the backend did not keep it, when it did not. */
  saveError: string | null
  /**
   * Set when the saved voice it was made with, or that voice's consent, was revoked: the studio erased its audio and
   * keeps the take only as a record (no play, no download, not chosen).
   */
  erased: TakeErasure | null
}

export interface TakeErasure {
  /** Milliseconds since 1970. */
  at: number
  reason: ErasureReason
}
/** Silence between lines in the script's download. */
export const LINE_GAP_MS = 300

const SAMPLES_PER_MS = SAMPLE_RATE / 1000

export interface TakesState {
  /** Oldest first. */
  takes: Take[]
  /** Per line, how many of its takes the backend dropped to stay within its caps. */
  dropped: Record<string, number>
  /** Starts a take (status `recording`); returns its id. */
  begin(lineId: string, text: string, request: Omit<SpeechRequest, 'input'>): string
  append(id: string, pcm: Int16Array): void
  finish(id: string, status: Exclude<TakeStatus, 'recording'>, timeToFirstAudioMs?: number | null): void
  /** Stars a complete take, un-starring the line's previous one; `false` un-stars it. */
  star(id: string, starred?: boolean): void
  remove(id: string): void
  rename(id: string, name: string | null): void
  /** The take as the backend stored it (its id), or why it was not stored. */
  stored(id: string, outcome: { storedId: string; loudnessLufs?: number | null } | { error: string }): void
  /** Removes takes the backend dropped (by backend id), counting them per line for the notice. */
  applyDropped(dropped: readonly { id: string; line_id: string }[]): void
  setTimeToFirstAudio(id: string, ms: number | null): void
  /**
   * Merges a script's stored takes: new ones are added (audio to follow, `setAudio`), known ones take the backend's
   * star and name; a loaded take the backend no longer lists is removed. Takes made in this tab stay.
   */
  loadStored(stored: readonly StoredTake[]): void
  setAudio(id: string, pcm: Int16Array): void
  /** The backend erased the take's audio (found when it answered 410): drops the audio here too. */
  markErased(id: string, erased: TakeErasure): void
  /** The line's takes, newest first. */
  takesFor(lineId: string): Take[]
  /** The starred take of each line that has one, in line order. */
  chosenTakes(lineIds: readonly string[]): Take[]
}

/** A line's takes, newest first (takes are kept in the order they were made). */
export function takesOfLine(takes: readonly Take[], lineId: string): Take[] {
  return takes.filter((t) => t.lineId === lineId).reverse()
}

/** The chosen takes' audio end to end, with `gapMs` of silence between them. */
export function joinTakes(takes: readonly Pick<Take, 'pcm'>[], gapMs = LINE_GAP_MS): Int16Array {
  const gap = Math.round(gapMs * SAMPLES_PER_MS)
  const total = takes.reduce((n, t) => n + t.pcm.length, 0) + gap * Math.max(0, takes.length - 1)
  const out = new Int16Array(total)
  let at = 0
  for (const t of takes) {
    out.set(t.pcm, at)
    at += t.pcm.length + gap
  }
  return out
}

export function createTakesStore() {
  /**
   * The buffer a recording take grows in, doubled when full; the take's `pcm` is a view of its filled part. Views
   * handed out earlier keep their length, so no one sees them change.
   */
  const growing = new Map<string, Int16Array>()

  return create<TakesState>((set, get) => {
    const update = (id: string, patch: (t: Take) => Partial<Take>) =>
      set({ takes: get().takes.map((t) => (t.id === id ? { ...t, ...patch(t) } : t)) })

    return {
      takes: [],
      dropped: {},

      begin(lineId, text, request) {
        const take: Take = {
          id: `take_${crypto.randomUUID()}`,
          lineId,
          text,
          request,
          createdAt: Date.now(),
          pcm: new Int16Array(0),
          durationMs: 0,
          status: 'recording',
          starred: false,
          final: request.stream === false,
          timeToFirstAudioMs: null,
          name: null,
          loudnessLufs: null,
          storedId: null,
          origin: 'page',
          audioReady: true,
          saveError: null,
          erased: null,
        }
        set({ takes: [...get().takes, take] })
        return take.id
      },

      append(id, pcm) {
        const take = get().takes.find((t) => t.id === id)
        if (take?.status !== 'recording' || pcm.length === 0) return
        const length = take.pcm.length + pcm.length
        let buffer = growing.get(id)
        if (!buffer || buffer.length < length) {
          const next = new Int16Array(Math.max(length, (buffer?.length ?? 0) * 2, SAMPLE_RATE))
          next.set(take.pcm)
          buffer = next
          growing.set(id, buffer)
        }
        buffer.set(pcm, take.pcm.length)
        const filled = buffer.subarray(0, length)
        update(id, () => ({ pcm: filled, durationMs: length / SAMPLES_PER_MS }))
      },

      finish(id, status, timeToFirstAudioMs = null) {
        const take = get().takes.find((t) => t.id === id)
        if (take?.status !== 'recording') return
        growing.delete(id)
        // A copy of exactly the audio lets the growth buffer's slack go.
        update(id, (t) => ({ status, pcm: t.pcm.slice(), timeToFirstAudioMs }))
      },

      star(id, starred = true) {
        const take = get().takes.find((t) => t.id === id)
        if (!take || (starred && (take.status !== 'complete' || take.erased))) return
        set({
          takes: get().takes.map((t) => {
            if (t.id === id) return t.starred === starred ? t : { ...t, starred }
            if (starred && t.lineId === take.lineId && t.starred) return { ...t, starred: false }
            return t
          }),
        })
      },

      remove(id) {
        growing.delete(id)
        set({ takes: get().takes.filter((t) => t.id !== id) })
      },

      rename(id, name) {
        update(id, () => ({ name }))
      },

      stored(id, outcome) {
        if (!('storedId' in outcome)) return update(id, () => ({ storedId: null, saveError: outcome.error }))
        // A list fetched just as the save finished may have brought the same take in already: keep this tab's own.
        set({
          takes: get().takes.flatMap((t) => {
            if (t.id === id)
              return [
                {
                  ...t,
                  storedId: outcome.storedId,
                  saveError: null,
                  loudnessLufs: outcome.loudnessLufs ?? t.loudnessLufs,
                },
              ]
            return t.storedId === outcome.storedId ? [] : [t]
          }),
        })
      },

      applyDropped(droppedTakes) {
        const gone = new Set(droppedTakes.map((d) => d.id))
        const dropped = { ...get().dropped }
        for (const d of droppedTakes) dropped[d.line_id] = (dropped[d.line_id] ?? 0) + 1
        set({ takes: get().takes.filter((t) => t.storedId === null || !gone.has(t.storedId)), dropped })
      },

      setTimeToFirstAudio(id, ms) {
        update(id, () => ({ timeToFirstAudioMs: ms }))
      },

      loadStored(storedTakes) {
        const byStoredId = new Map(storedTakes.map((t) => [t.id, t]))
        const known = new Set<string>()
        const kept = get().takes.flatMap((t): Take[] => {
          if (t.storedId === null) return [t]
          known.add(t.storedId)
          const s = byStoredId.get(t.storedId)
          if (!s) return t.origin === 'backend' ? [] : [t]
          // Erased since this tab made or fetched it: its audio goes from the page too.
          if (s.erased) return [{ ...t, ...erasedPatch(s.erased), name: s.name }]
          return [{ ...t, starred: s.starred, name: s.name }]
        })
        const added = storedTakes.filter((s) => !known.has(s.id)).map(fromStored)
        // Oldest first, as they were made; the backend's time orders takes made in different browsers.
        set({ takes: [...kept, ...added].sort((a, b) => a.createdAt - b.createdAt) })
      },

      setAudio(id, pcm) {
        update(id, () => ({ pcm, audioReady: true, durationMs: pcm.length / SAMPLES_PER_MS }))
      },

      markErased(id, erased) {
        update(id, (t) => (t.erased ? {} : erasedPatch(erased)))
      },

      takesFor: (lineId) => takesOfLine(get().takes, lineId),

      chosenTakes(lineIds) {
        const starred = new Map(
          get()
            .takes.filter((t) => t.starred && !t.erased)
            .map((t) => [t.lineId, t]),
        )
        return lineIds.flatMap((id) => starred.get(id) ?? [])
      },
    }
  })
}

/** What an erasure changes in a take the page holds: no audio, nothing to fetch, not chosen. */
const erasedPatch = (erased: TakeErasure): Partial<Take> => ({
  erased,
  pcm: new Int16Array(0),
  audioReady: true,
  starred: false,
})

/** A stored take as the page holds it, its audio still to be fetched (none, when erased). */
function fromStored(s: StoredTake): Take {
  const { voice, ...settings } = s.settings
  return {
    id: s.id,
    lineId: s.line_id,
    text: s.text,
    // A take made with a reference clip has no voice: the clip was never kept.
    request: s.reference ? settings : { ...settings, voice },
    createdAt: s.created_at,
    pcm: new Int16Array(0),
    durationMs: s.samples / SAMPLES_PER_MS,
    status: s.status,
    starred: s.starred,
    final: s.final,
    timeToFirstAudioMs: s.time_to_first_audio_ms,
    name: s.name,
    loudnessLufs: s.loudness_lufs ?? null,
    storedId: s.id,
    origin: 'backend',
    audioReady: false,
    saveError: null,
    erased: null,
    ...(s.erased ? erasedPatch(s.erased) : {}),
  }
}

export type TakesStore = ReturnType<typeof createTakesStore>

export const useTakes = createTakesStore()
