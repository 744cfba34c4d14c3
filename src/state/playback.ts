import { create } from 'zustand'
import { hasMarkup, type SpeechRequest, type Usage } from '../../schema/index.ts'
import { IncompleteStreamError, streamSpeech } from '../api/client.ts'
import { PcmPlayer, type PlayerStats } from '../audio/pcm-player.ts'

/** Playback of one speech stream at a time through the shared worklet player. */

export type PlaybackStatus = 'idle' | 'streaming' | 'playing' | 'done' | 'stopped' | 'incomplete' | 'error'

export const PREBUFFER_MS = 200
export const MARKUP_PREBUFFER_MS = 350

interface PlaybackState {
  status: PlaybackStatus
  stats: PlayerStats | null
  /** Click to first non-zero sample leaving the worklet. */
  timeToFirstAudioMs: number | null
  usage: Usage | null
  error: string | null
  play(request: SpeechRequest): Promise<void>
  stop(): Promise<void>
}

let player: Promise<PcmPlayer> | null = null
let current: AbortController | null = null

export const usePlayback = create<PlaybackState>((set, get) => ({
  status: 'idle',
  stats: null,
  timeToFirstAudioMs: null,
  usage: null,
  error: null,

  async play(request) {
    const clickedAt = performance.now()
    await get().stop()
    player ??= PcmPlayer.create()
    const p = await player
    const controller = new AbortController()
    current = controller
    p.start({ prebufferMs: hasMarkup(request.input) ? MARKUP_PREBUFFER_MS : PREBUFFER_MS })
    set({ status: 'streaming', stats: p.stats, timeToFirstAudioMs: null, usage: null, error: null })
    const unsubscribe = p.subscribe((stats) => {
      if (current !== controller) return
      set({
        stats,
        timeToFirstAudioMs: stats.firstSampleAt === null ? null : Math.round(stats.firstSampleAt - clickedAt),
      })
    })
    try {
      const { usage } = await streamSpeech(request, {
        signal: controller.signal,
        onAudio: (pcm) => p.push(pcm),
      })
      p.end()
      set({ status: 'playing', usage })
      const stats = await p.whenEnded()
      if (current === controller) set({ status: stats.state === 'stopped' ? 'stopped' : 'done', stats })
    } catch (err) {
      if (controller.signal.aborted) return
      // What already arrived still plays out; the take is marked incomplete and is never continued.
      p.end()
      set(
        err instanceof IncompleteStreamError
          ? { status: 'incomplete', error: err.message }
          : { status: 'error', error: (err as Error).message },
      )
    } finally {
      unsubscribe()
      if (current === controller) current = null
    }
  },

  async stop() {
    const controller = current
    if (!controller) return
    current = null
    controller.abort()
    if (player) await (await player).stop()
    set({ status: 'stopped' })
  },
}))
