/**
 * The state of a live transcription session, folded from the service's realtime events (contract 6.4). Pure: the
 * store feeds it parsed events and the page renders the result.
 *
 * Words arrive as `…transcription.delta` per item; `…completed` gives the item's final transcript; the speakers event,
 * which follows a turn's end by up to a couple of seconds, gives its speaker, attribution and marked-up text.
 */

export type LiveDiarizationStatus = 'active' | 'unavailable' | 'degraded'

export interface LiveItem {
  id: string
  /** Deltas so far, then the completed transcript. */
  text: string
  completed: boolean
  /** Undefined until the speakers event came; null when it said the speaker is undetermined. */
  speaker?: string | null
  attribution?: string
  /** The speakers event's text, with enrichment markup. */
  speakerText?: string
  startMs?: number
  endMs?: number
}

export interface LiveState {
  diarization: {
    enabled: boolean
    status: LiveDiarizationStatus | null
    maxSpeakers: number | null
    maxSpeakersRequested: number | null
  } | null
  items: LiveItem[]
  /** The service hears speech right now (between speech_started and speech_stopped). */
  speaking: boolean
  /** The last error event's message. */
  error: string | null
}

export const INITIAL_LIVE: LiveState = { diarization: null, items: [], speaking: false, error: null }

type AnyEvent = { type: string } & Record<string, unknown>

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

function withItem(state: LiveState, id: string, change: (item: LiveItem) => LiveItem): LiveState {
  const at = state.items.findIndex((i) => i.id === id)
  if (at < 0) return { ...state, items: [...state.items, change({ id, text: '', completed: false })] }
  const items = state.items.slice()
  items[at] = change(items[at] as LiveItem)
  return { ...state, items }
}

export function liveReducer(state: LiveState, event: AnyEvent): LiveState {
  switch (event.type) {
    case 'session.created':
    case 'session.updated': {
      const d = (event.session as { diarization?: Record<string, unknown> } | undefined)?.diarization
      if (!d) return state
      const status = str(d.status)
      return {
        ...state,
        diarization: {
          enabled: d.enabled === true,
          status:
            status === 'active' || status === 'unavailable' || status === 'degraded'
              ? status
              : (state.diarization?.status ?? null),
          maxSpeakers: num(d.max_speakers) ?? null,
          maxSpeakersRequested: num(d.max_speakers_requested) ?? null,
        },
      }
    }
    case 'input_audio_buffer.speech_started':
      return { ...state, speaking: true }
    case 'input_audio_buffer.speech_stopped':
      return { ...state, speaking: false }
    case 'input_audio_buffer.committed': {
      const id = str(event.item_id)
      return id ? withItem(state, id, (i) => i) : state
    }
    case 'conversation.item.input_audio_transcription.delta': {
      const id = str(event.item_id)
      const delta = str(event.delta) ?? ''
      return id ? withItem(state, id, (i) => (i.completed ? i : { ...i, text: i.text + delta })) : state
    }
    case 'conversation.item.input_audio_transcription.completed': {
      const id = str(event.item_id)
      if (!id) return state
      return withItem(state, id, (i) => ({
        ...i,
        text: str(event.transcript) ?? i.text,
        completed: true,
        startMs: num(event.audio_start_ms) ?? i.startMs,
        endMs: num(event.audio_end_ms) ?? i.endMs,
      }))
    }
    case 'conversation.item.input_audio_transcription.speakers': {
      const id = str(event.item_id)
      if (!id) return state
      const segments = Array.isArray(event.segments)
        ? (event.segments as Array<{ segment_start_ms?: unknown; segment_end_ms?: unknown }>)
        : []
      const starts = segments.map((s) => num(s.segment_start_ms)).filter((n): n is number => n !== undefined)
      const ends = segments.map((s) => num(s.segment_end_ms)).filter((n): n is number => n !== undefined)
      return withItem(state, id, (i) => ({
        ...i,
        speaker: event.speaker === null ? null : (str(event.speaker) ?? null),
        attribution: str(event.attribution),
        speakerText: str(event.text),
        startMs: i.startMs ?? (starts.length ? Math.min(...starts) : undefined),
        endMs: i.endMs ?? (ends.length ? Math.max(...ends) : undefined),
      }))
    }
    case 'error': {
      const err = event.error as { message?: unknown } | undefined
      return { ...state, error: str(err?.message) ?? 'The service reported an error.' }
    }
    default:
      return state
  }
}

/**
 * The rows worth showing: an item whose transcript came back empty (a cough, a door) is left out, and once the
 * session has ended so is an item that never got a word (its transcript can no longer come).
 */
export function visibleItems(items: readonly LiveItem[], ended: boolean): LiveItem[] {
  return items.filter((i) => {
    const words = i.text.trim() || i.speakerText?.trim()
    if (words) return true
    return !(i.completed || ended)
  })
}

/**
 * An error event that is no error for someone pressing Stop: the service refuses a commit when no speech is in
 * progress (its turn detection already ended the turn at the pause), which is what a Stop after silence sends when
 * the client's view of `speaking` lags the service's.
 */
export const isStopNoise = (event: { type: string } & Record<string, unknown>): boolean =>
  event.type === 'error' &&
  (event.error as { code?: unknown } | undefined)?.code === 'input_audio_buffer_commit_empty'

/**
 * Whether a Stop has nothing more to wait for: every item has its transcript (and, with diarization, its speaker),
 * and when Stop committed speech in progress, that commit's item has arrived (`itemsBefore`: the count at Stop).
 */
export function drained(state: LiveState, stop: { committed: boolean; itemsBefore: number }): boolean {
  if (stop.committed && state.items.length <= stop.itemsBefore) return false
  return !state.items.some(
    (i) => !i.completed || (state.diarization?.enabled === true && i.speaker === undefined),
  )
}

export const DIARIZATION_STATUS_TEXT: Record<LiveDiarizationStatus, string> = {
  active: 'Speaker labels: active.',
  unavailable: 'Speaker labels: unavailable for this session; the words still come.',
  degraded: 'Speaker labels: degraded; some turns may have no speaker.',
}
