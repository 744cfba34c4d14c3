import { create } from 'zustand'
import { SAMPLE_RATE, type SpeechRequest } from '../../../schema/index.ts'

/**
 * Every generation of a line is a take, kept in memory with its audio for replay, comparison and download. A
 * designer stars the one take per line that goes into the script's download. Takes live only in this tab.
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
  timeToFirstAudioMs: number | null
}

/** Audio held at most: 30 minutes of 24 kHz PCM16 is about 86 MB. */
export const MAX_TAKES_AUDIO_MS = 30 * 60_000
/** Silence between lines in the script's download. */
export const LINE_GAP_MS = 300

const SAMPLES_PER_MS = SAMPLE_RATE / 1000

export interface TakesState {
  /** Oldest first. */
  takes: Take[]
  /** Per line, how many of its takes were dropped to stay within the memory cap. */
  dropped: Record<string, number>
  /** Starts a take (status `recording`); returns its id. */
  begin(lineId: string, text: string, request: Omit<SpeechRequest, 'input'>): string
  append(id: string, pcm: Int16Array): void
  finish(id: string, status: Exclude<TakeStatus, 'recording'>, timeToFirstAudioMs?: number | null): void
  /** Stars a complete take, un-starring the line's previous one; `false` un-stars it. */
  star(id: string, starred?: boolean): void
  remove(id: string): void
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

export function createTakesStore(maxAudioMs = MAX_TAKES_AUDIO_MS) {
  const maxSamples = maxAudioMs * SAMPLES_PER_MS
  /**
   * The buffer a recording take grows in, doubled when full; the take's `pcm` is a view of its filled part. Views
   * handed out earlier keep their length, so no one sees them change.
   */
  const growing = new Map<string, Int16Array>()

  return create<TakesState>((set, get) => {
    const update = (id: string, patch: (t: Take) => Partial<Take>) =>
      set({ takes: get().takes.map((t) => (t.id === id ? { ...t, ...patch(t) } : t)) })

    /** Drops the oldest takes that are neither starred nor still arriving until the audio fits. */
    const enforceCap = () => {
      let { takes } = get()
      let total = takes.reduce((n, t) => n + t.pcm.length, 0)
      if (total <= maxSamples) return
      const dropped = { ...get().dropped }
      for (const t of takes) {
        if (total <= maxSamples) break
        if (t.starred || t.status === 'recording') continue
        total -= t.pcm.length
        takes = takes.filter((x) => x !== t)
        dropped[t.lineId] = (dropped[t.lineId] ?? 0) + 1
      }
      set({ takes, dropped })
    }

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
        enforceCap()
      },

      finish(id, status, timeToFirstAudioMs = null) {
        const take = get().takes.find((t) => t.id === id)
        if (take?.status !== 'recording') return
        growing.delete(id)
        // A copy of exactly the audio lets the growth buffer's slack go.
        update(id, (t) => ({ status, pcm: t.pcm.slice(), timeToFirstAudioMs }))
        enforceCap()
      },

      star(id, starred = true) {
        const take = get().takes.find((t) => t.id === id)
        if (!take || (starred && take.status !== 'complete')) return
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

      takesFor: (lineId) => takesOfLine(get().takes, lineId),

      chosenTakes(lineIds) {
        const starred = new Map(
          get()
            .takes.filter((t) => t.starred)
            .map((t) => [t.lineId, t]),
        )
        return lineIds.flatMap((id) => starred.get(id) ?? [])
      },
    }
  })
}

export type TakesStore = ReturnType<typeof createTakesStore>

export const useTakes = createTakesStore()
