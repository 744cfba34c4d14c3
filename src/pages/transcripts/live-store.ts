import { create } from 'zustand'
import { connectLiveTranscription, type LiveConnection } from '../../api/live-transcription.ts'
import { transcriptListQuery } from '../../api/transcripts.ts'
import { MicCapture } from '../../audio/mic-capture.ts'
import { queryClient } from '../../state/query-client.ts'
import { drained, INITIAL_LIVE, isStopNoise, type LiveState, liveReducer } from './live.ts'

/**
 * One live transcription session at a time: the microphone, the socket through the backend, and the session's state
 * folded from the service's events (live.ts).
 */

export type LiveStatus = 'idle' | 'starting' | 'listening' | 'stopping' | 'stopped' | 'error'

interface LiveStore {
  status: LiveStatus
  session: LiveState
  error: string | null
  /** Seconds of microphone audio sent. */
  sentSeconds: number
  start(settings: { diarization: boolean; maxSpeakers?: number }): Promise<void>
  stop(): Promise<void>
}

/**
 * After Stop, how long to wait at most for the last turns' transcripts and speakers events (recognition of a long
 * turn on a busy machine takes several seconds); the wait ends as soon as nothing is pending.
 */
const DRAIN_MS = 12_000

let mic: MicCapture | null = null
let connection: LiveConnection | null = null

function microphoneProblem(err: unknown): string {
  const name = (err as { name?: string }).name
  if (name === 'NotAllowedError')
    return 'The browser was not allowed to use the microphone. Allow it, then start again.'
  if (name === 'NotFoundError') return 'No microphone was found.'
  return `The microphone could not be opened: ${(err as Error).message}`
}

export const useLive = create<LiveStore>((set, get) => {
  const release = async () => {
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
      let samples = 0
      const opened = new Promise<void>((resolve, reject) => {
        connection = connectLiveTranscription(settings, {
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
            // The backend keeps the session as a saved transcript when it closes.
            if (opened)
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
        })
      })
      try {
        await opened
      } catch (err) {
        set({ status: 'error', error: (err as Error).message })
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
