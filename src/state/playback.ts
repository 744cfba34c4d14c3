import { useEffect } from 'react'
import { create } from 'zustand'
import { hasMarkup, type SpeechRequest } from '../../schema/index.ts'
import { IncompleteStreamError, SPEECH_MARKS, streamSpeech } from '../api/speech.ts'
import { PcmPlayer, type PlayerStats } from '../audio/pcm-player.ts'

/**
 * Playback of one speech stream at a time through the shared worklet player. A stream's audio comes from a
 * `StreamSource`: one request, a script's lines in turn, a one-request reference, or the live text socket.
 */

export type PlaybackStatus = 'idle' | 'streaming' | 'playing' | 'done' | 'stopped' | 'incomplete' | 'error'

/** The player's marks of a play: Play pressed, the first audible sample left the worklet (with SPEECH_MARKS). */
export const PLAY_MARKS = {
  click: 'play:click',
  firstSample: 'play:first-sample',
  firstSampleNoticed: 'play:first-sample-noticed',
} as const

export const PREBUFFER_MS = 200
export const MARKUP_PREBUFFER_MS = 350

/**
 * The least audio playback may start with when it arrives well ahead of playback (the player's adaptive prebuffer,
 * src/audio/jitter-buffer.ts). Slow production waits for the recommended prebuffer below, which is a floor: the
 * player raises it when the stream has arrived late (contract 6.1: "at least 200 ms").
 */
export const EARLIEST_START_MS = 40

/** The prebuffer the contract recommends for this text (6.1): longer when markup is present. */
export function prebufferFor(text: string): number {
  return hasMarkup(text) ? MARKUP_PREBUFFER_MS : PREBUFFER_MS
}

/** Where a source delivers 24 kHz PCM16; `framesQueued` is the stream position the next push starts at. */
export interface AudioSink {
  push(pcm: Int16Array): void
  readonly framesQueued: number
}

/** Produces one stream's audio into `sink`; resolves when the audio is complete, rejects when it is not. */
export type StreamSource = (sink: AudioSink, signal: AbortSignal) => Promise<void>

interface PlaybackState {
  status: PlaybackStatus
  stats: PlayerStats | null
  /** Click to first non-zero sample leaving the worklet. */
  timeToFirstAudioMs: number | null
  error: string | null
  /** The failure itself, for pages that explain it (src/api/error-text.ts). */
  failure: unknown
  play(request: SpeechRequest): Promise<void>
  playSource(source: StreamSource, opts: { prebufferMs: number; clickedAt?: number }): Promise<void>
  stop(): Promise<void>
}

let player: Promise<PcmPlayer> | null = null
let current: AbortController | null = null

/**
 * Creates the shared player (its AudioContext and worklet module) ahead of the first Play, so that Play waits for
 * neither: made by the first Play, they were part of its wait for audio. A player that cannot be made is forgotten,
 * and the next Play tries again and reports why.
 */
export function preparePlayer(): Promise<PcmPlayer> {
  if (!player) {
    const made = PcmPlayer.create()
    player = made
    made.catch(() => {
      if (player === made) player = null
    })
  }
  return player
}

/**
 * Prepares the player on the user's first gesture on the page (a click, a key), well before Play is pressed: a
 * context made before any gesture would start suspended, with the autoplay policy's warning in the console.
 */
export function usePlayerReadyBeforePlay() {
  useEffect(() => {
    const prepare = () => void preparePlayer().catch(() => undefined)
    const events = ['pointerdown', 'keydown'] as const
    for (const type of events) document.addEventListener(type, prepare, { once: true, capture: true })
    return () => {
      for (const type of events) document.removeEventListener(type, prepare, { capture: true })
    }
  }, [])
}

export const usePlayback = create<PlaybackState>((set, get) => ({
  status: 'idle',
  stats: null,
  timeToFirstAudioMs: null,
  error: null,
  failure: null,

  play(request) {
    return get().playSource(
      async (sink, signal) => {
        await streamSpeech(request, { signal, onAudio: (pcm) => sink.push(pcm) })
      },
      { prebufferMs: prebufferFor(request.input) },
    )
  },

  async playSource(source, { prebufferMs, clickedAt = performance.now() }) {
    // This play's marks replace the last one's, so they never pile up.
    for (const name of [...Object.values(PLAY_MARKS), ...Object.values(SPEECH_MARKS)])
      performance.clearMarks(name)
    performance.mark(PLAY_MARKS.click, { startTime: clickedAt })
    await get().stop()
    const p = await preparePlayer()
    const controller = new AbortController()
    current = controller
    p.start({ prebufferMs, earliestMs: Math.min(prebufferMs, EARLIEST_START_MS) })
    set({ status: 'streaming', stats: p.stats, timeToFirstAudioMs: null, error: null, failure: null })
    let heard = false
    const unsubscribe = p.subscribe((stats) => {
      if (current !== controller) return
      if (!heard && stats.firstSampleAt !== null) {
        heard = true
        performance.mark(PLAY_MARKS.firstSample, { startTime: stats.firstSampleAt })
        if (stats.firstSampleNoticedAt !== null)
          performance.mark(PLAY_MARKS.firstSampleNoticed, { startTime: stats.firstSampleNoticedAt })
      }
      set({
        stats,
        timeToFirstAudioMs: stats.firstSampleAt === null ? null : Math.round(stats.firstSampleAt - clickedAt),
      })
    })
    let framesQueued = 0
    const sink: AudioSink = {
      push(pcm) {
        if (current !== controller) return
        framesQueued += pcm.length
        p.push(pcm)
      },
      get framesQueued() {
        return framesQueued
      },
    }
    try {
      await source(sink, controller.signal)
      p.end()
      set({ status: 'playing' })
      const stats = await p.whenEnded()
      if (current === controller) set({ status: stats.state === 'stopped' ? 'stopped' : 'done', stats })
    } catch (err) {
      if (controller.signal.aborted) return
      // What already arrived still plays out; the take is marked incomplete and is never continued.
      p.end()
      set({
        status: err instanceof IncompleteStreamError ? 'incomplete' : 'error',
        error: (err as Error).message,
        failure: err,
      })
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
