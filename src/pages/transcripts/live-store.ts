import { create } from 'zustand'
import { explainError } from '../../api/error-text.ts'
import { ApiRequestError } from '../../api/http.ts'
import {
  connectLiveTranscription,
  type LiveConnection,
  type LiveHandlers,
} from '../../api/live-transcription.ts'
import { connectLiveWebRtc } from '../../api/live-webrtc.ts'
import { transcriptListQuery } from '../../api/transcripts.ts'
import { MicCapture } from '../../audio/mic-capture.ts'
import { queryClient } from '../../state/query-client.ts'
import { drained, INITIAL_LIVE, isStopNoise, type LiveState, liveReducer } from './live.ts'

/**
 * One live transcription session at a time: the microphone, the connection through the backend (the socket bridge, or
 * a WebRTC call the backend places), and the session's state folded from the service's events (live.ts).
 */

export type LiveStatus = 'idle' | 'starting' | 'listening' | 'stopping' | 'stopped' | 'error'

/**
 * How the session reaches the service: the socket bridge (the backend relays every frame, records the session as a
 * saved transcript, and speaker labels are available), or WebRTC (the microphone goes to the service as Opus; no
 * speaker labels on that transport, and nothing is recorded by the backend).
 */
export type LiveTransport = 'websocket' | 'webrtc'

export interface LiveSettings {
  diarization: boolean
  maxSpeakers?: number
  transport?: LiveTransport
}

interface LiveStore {
  status: LiveStatus
  session: LiveState
  error: string | null
  /** Seconds of microphone audio sent. */
  sentSeconds: number
  start(settings: LiveSettings): Promise<void>
  stop(): Promise<void>
}

/**
 * After Stop, how long to wait at most for the last turns' transcripts and speakers events (recognition of a long
 * turn on a busy machine takes several seconds); the wait ends as soon as nothing is pending.
 */
const DRAIN_MS = 12_000

let mic: MicCapture | null = null
let connection: LiveConnection | null = null
/** WebRTC: the seconds sent are counted by the clock, since the track streams by itself. */
let clock: ReturnType<typeof setInterval> | null = null

function microphoneProblem(err: unknown): string {
  const name = (err as { name?: string }).name
  if (name === 'NotAllowedError')
    return 'The browser was not allowed to use the microphone. Allow it, then start again.'
  if (name === 'NotFoundError') return 'No microphone was found.'
  return `The microphone could not be opened: ${(err as Error).message}`
}

/** Why a WebRTC call never opened: the backend's or the service's refusal, the microphone, or the network. */
function callProblem(err: unknown): string {
  if (err instanceof ApiRequestError) return explainError(err, 'start the live session').title
  const name = (err as { name?: string }).name
  if (name === 'NotAllowedError' || name === 'NotFoundError' || name === 'NotReadableError')
    return microphoneProblem(err)
  return `The live session could not start over WebRTC: ${(err as Error).message}`
}

export const useLive = create<LiveStore>((set, get) => {
  const release = async () => {
    if (clock) clearInterval(clock)
    clock = null
    const m = mic
    mic = null
    await m?.stop().catch(() => undefined)
  }

  return {
    status: 'idle',
    session: INITIAL_LIVE,
    error: null,
    sentSeconds: 0,

    async start(settings) {
      if (get().status === 'starting' || get().status === 'listening' || get().status === 'stopping') return
      set({ status: 'starting', session: INITIAL_LIVE, error: null, sentSeconds: 0 })
      const webrtc = settings.transport === 'webrtc'
      let samples = 0
      const opened = new Promise<void>((resolve, reject) => {
        const handlers: LiveHandlers = {
          onOpen: resolve,
          onEvent: (event) => {
            // Stop after silence: the service's turn detection already ended the turn, so its refusal of the
            // commit is expected and not shown.
            if (get().status === 'stopping' && isStopNoise(event)) return
            set({ session: liveReducer(get().session, event) })
          },
          onClose: ({ code, reason, opened }) => {
            connection = null
            void release()
            // The backend keeps a socket session as a saved transcript when it closes.
            if (opened && !webrtc)
              setTimeout(
                () => void queryClient.invalidateQueries({ queryKey: transcriptListQuery.queryKey }),
                300,
              )
            if (!opened) {
              reject(
                new Error(
                  'The studio could not open a live session (the speech service refused or is not running).',
                ),
              )
              return
            }
            const status = get().status
            if (status === 'error') return
            if (status === 'stopping' || status === 'stopped') {
              set({ status: 'stopped' })
              return
            }
            // The service closes with 1000 after an error event too (e.g. rate_limit_exceeded): classify by it.
            const said = get().session.error
            const clean = code === 1000 && !said
            set({
              status: clean ? 'stopped' : 'error',
              error: clean
                ? null
                : (said ?? `The live session ended (${code}${reason ? `: ${reason}` : ''}).`),
            })
          },
        }
        connection = webrtc
          ? connectLiveWebRtc({
              ...handlers,
              onFailed: (err) => {
                connection = null
                void release()
                reject(new Error(callProblem(err)))
              },
            })
          : connectLiveTranscription(settings, handlers)
      })
      try {
        await opened
      } catch (err) {
        set({ status: 'error', error: (err as Error).message })
        return
      }
      if (webrtc) {
        // The call streams the microphone's track itself.
        const since = Date.now()
        clock = setInterval(() => set({ sentSeconds: Math.floor((Date.now() - since) / 1000) }), 1000)
        set({ status: 'listening' })
        return
      }
      try {
        mic = await MicCapture.start((pcm) => {
          connection?.sendAudio(pcm)
          samples += pcm.length
          if (samples % 24_000 < pcm.length) set({ sentSeconds: Math.floor(samples / 24_000) })
        })
        set({ status: 'listening' })
      } catch (err) {
        const open = connection
        connection = null
        open?.close()
        set({ status: 'error', error: microphoneProblem(err) })
      }
    },

    async stop() {
      if (get().status !== 'listening') return
      set({ status: 'stopping' })
      await release()
      connection?.endAudio?.()
      // Only speech in progress needs ending; after a pause the service's turn detection has already ended it.
      const stopped = { committed: get().session.speaking, itemsBefore: get().session.items.length }
      if (stopped.committed) connection?.commit()
      // Give the service time to finish the last turns and name their speakers.
      const deadline = Date.now() + DRAIN_MS
      while (Date.now() < deadline && connection) {
        if (drained(get().session, stopped)) break
        await new Promise((r) => setTimeout(r, 100))
      }
      connection?.close()
      connection = null
      set({ status: 'stopped' })
    },
  }
})
