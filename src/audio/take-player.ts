import { useEffect, useState, useSyncExternalStore } from 'react'
import { SAMPLE_RATE } from '../../schema/index.ts'

/**
 * Replays whole takes, already in memory as 24 kHz PCM16, through AudioBufferSourceNodes on a context of its own
 * (the streaming worklet is for audio still arriving). For A/B comparison both takes' buffers stay ready, so a
 * switch stops one source and starts the other at the same offset in the same audio callback; 5 ms gain ramps on
 * both sides keep the cut free of clicks.
 */

export interface PlayableTake {
  id: string
  pcm: Int16Array
}

export type Side = 'a' | 'b'

export interface TakePlayerState {
  /** The take loaded for playback, if any. */
  takeId: string | null
  playing: boolean
  /** Seconds of the loaded take. */
  duration: number
  /** The pair being compared, which of them is heard, and the gain each plays at (1 unless matched). */
  compare: { a: string; b: string; side: Side; gains: Gains } | null
}

/** Linear gain per side of a comparison (loudness matching, core/loudness.ts `matchedGains`). */
export interface Gains {
  a: number
  b: number
}

const UNITY: Gains = { a: 1, b: 1 }

const FADE_SECONDS = 0.005

interface Loaded {
  take: PlayableTake
  buffer: AudioBuffer
}

interface Voice {
  source: AudioBufferSourceNode
  gain: GainNode
  /** Context time at which `offset` was heard. */
  startedAt: number
  offset: number
}

/** Events: `change` when the state changes, `ended` when a take plays to its end. */
export class TakePlayer extends EventTarget {
  private context: AudioContext | null = null
  /** Keyed by the PCM itself: a take still growing gets a new array, so a stale buffer is never replayed. */
  private buffers = new WeakMap<Int16Array, AudioBuffer>()
  private loaded: Loaded | null = null
  private pair: { a: Loaded; b: Loaded; side: Side; gains: Gains } | null = null
  private voice: Voice | null = null
  /** The position while nothing plays. */
  private offset = 0
  private snapshot: TakePlayerState = { takeId: null, playing: false, duration: 0, compare: null }

  constructor(private readonly makeContext: () => AudioContext = () => new AudioContext()) {
    super()
  }

  get state(): TakePlayerState {
    return this.snapshot
  }

  /** Seconds into the loaded take. */
  get position(): number {
    const v = this.voice
    if (!v || !this.context) return this.offset
    return Math.min(this.duration, v.offset + Math.max(0, this.context.currentTime - v.startedAt))
  }

  private get duration(): number {
    return this.loaded?.buffer.duration ?? 0
  }

  /**
   * Plays `take` from `fromSeconds`; without it, a paused take resumes where it was and any other starts at the
   * beginning. A take outside the pair being compared ends the comparison.
   */
  play(take: PlayableTake, fromSeconds?: number): void {
    const same = this.loaded?.take.id === take.id && this.loaded.take.pcm === take.pcm
    const at = this.position
    const resumeAt = same && at < this.duration ? at : 0
    this.silence()
    if (this.pair) {
      const side = this.sideOf(take.id)
      if (side && this.pair[side].take.pcm === take.pcm) this.pair.side = side
      else this.pair = null
    }
    this.loaded = this.pair ? this.pair[this.pair.side] : this.load(take)
    this.start(this.clamp(fromSeconds ?? resumeAt))
    this.changed()
  }

  pause(): void {
    if (!this.voice) return
    this.offset = this.position
    this.silence()
    this.changed()
  }

  /** Moves the loaded take to `seconds`, playing on from there if it was playing. */
  seek(seconds: number): void {
    if (!this.loaded) return
    const at = this.clamp(seconds)
    if (this.voice) {
      this.silence()
      this.start(at)
    } else this.offset = at
    this.changed()
  }

  /**
   * Readies both takes for A/B listening, with A loaded at its start; nothing plays until `play`. Each side plays at
   * its gain (the loudness match), applied inside the 5 ms fade so a switch stays free of clicks.
   */
  compare(a: PlayableTake, b: PlayableTake, gains: Gains = UNITY): void {
    this.silence()
    this.pair = { a: this.load(a), b: this.load(b), side: 'a', gains }
    this.loaded = this.pair.a
    this.offset = 0
    this.changed()
  }

  /** Hears the other take of the pair from the same position, playing or paused as before. */
  switchTo(side: Side): void {
    const pair = this.pair
    if (!pair || pair.side === side) return
    const at = this.position
    const wasPlaying = this.voice !== null
    this.silence()
    pair.side = side
    this.loaded = pair[side]
    const clamped = this.clamp(at)
    // Past the end of the shorter take there is nothing to hear; it waits there, ended.
    if (wasPlaying && clamped < this.duration) this.start(clamped)
    else this.offset = clamped
    this.changed()
  }

  /** Changes the pair's gains (matching turned on or off), heard at once if it plays. */
  setGains(gains: Gains): void {
    const pair = this.pair
    if (!pair || (pair.gains.a === gains.a && pair.gains.b === gains.b)) return
    pair.gains = gains
    const v = this.voice
    if (v && this.context) {
      const now = this.context.currentTime
      v.gain.gain.cancelScheduledValues(now)
      v.gain.gain.setValueAtTime(v.gain.gain.value, now)
      v.gain.gain.linearRampToValueAtTime(gains[pair.side], now + FADE_SECONDS)
    }
    this.changed()
  }

  endCompare(): void {
    if (!this.pair) return
    this.pair = null
    this.changed()
  }

  /** Stops and forgets the take (e.g. when it is deleted). */
  unload(takeId: string): void {
    const inPair = this.pair && this.sideOf(takeId)
    if (this.loaded?.take.id !== takeId && !inPair) return
    this.silence()
    this.loaded = null
    this.pair = null
    this.offset = 0
    this.changed()
  }

  async close(): Promise<void> {
    this.silence()
    await this.context?.close()
    this.context = null
  }

  private sideOf(takeId: string): Side | null {
    if (this.pair?.a.take.id === takeId) return 'a'
    if (this.pair?.b.take.id === takeId) return 'b'
    return null
  }

  private clamp(seconds: number): number {
    return Math.max(0, Math.min(this.duration, Number.isFinite(seconds) ? seconds : 0))
  }

  private audio(): AudioContext {
    this.context ??= this.makeContext()
    return this.context
  }

  private load(take: PlayableTake): Loaded {
    let buffer = this.buffers.get(take.pcm)
    if (!buffer) {
      // An AudioBuffer cannot be empty; one silent frame stands in for a take without audio.
      buffer = this.audio().createBuffer(1, Math.max(1, take.pcm.length), SAMPLE_RATE)
      const data = buffer.getChannelData(0)
      for (let i = 0; i < take.pcm.length; i++) data[i] = (take.pcm[i] ?? 0) / 32768
      this.buffers.set(take.pcm, buffer)
    }
    return { take, buffer }
  }

  private start(offset: number): void {
    const loaded = this.loaded
    if (!loaded) return
    const context = this.audio()
    // Autoplay policy may hold the context suspended until a user gesture; Play is one.
    void context.resume()
    const now = context.currentTime
    const gain = context.createGain()
    gain.gain.setValueAtTime(0, now)
    gain.gain.linearRampToValueAtTime(this.pair ? this.pair.gains[this.pair.side] : 1, now + FADE_SECONDS)
    gain.connect(context.destination)
    const source = context.createBufferSource()
    source.buffer = loaded.buffer
    source.connect(gain)
    source.onended = () => {
      gain.disconnect()
      if (this.voice?.source !== source) return
      this.voice = null
      this.offset = this.duration
      this.changed()
      this.dispatchEvent(new Event('ended'))
    }
    source.start(now, offset)
    this.voice = { source, gain, startedAt: now, offset }
  }

  /** Stops the source that plays, if any, with a short fade; its `ended` then is not the take's end. */
  private silence(): void {
    const v = this.voice
    if (!v || !this.context) return
    this.voice = null
    const now = this.context.currentTime
    v.gain.gain.cancelScheduledValues(now)
    v.gain.gain.setValueAtTime(v.gain.gain.value, now)
    v.gain.gain.linearRampToValueAtTime(0, now + FADE_SECONDS)
    v.source.stop(now + FADE_SECONDS)
  }

  private changed(): void {
    const pair = this.pair
    this.snapshot = {
      takeId: this.loaded?.take.id ?? null,
      playing: this.voice !== null,
      duration: this.duration,
      compare: pair ? { a: pair.a.take.id, b: pair.b.take.id, side: pair.side, gains: pair.gains } : null,
    }
    this.dispatchEvent(new Event('change'))
  }
}

let shared: TakePlayer | null = null
/** The page's one take player, so that replaying one take stops any other. */
export function sharedTakePlayer(): TakePlayer {
  shared ??= new TakePlayer()
  return shared
}

/** The player's state for a component, with the position refreshed every frame while it plays. */
export function useTakePlayer(player: TakePlayer): TakePlayerState & { position: number } {
  const state = useSyncExternalStore(
    (onChange) => {
      player.addEventListener('change', onChange)
      return () => player.removeEventListener('change', onChange)
    },
    () => player.state,
  )
  const [position, setPosition] = useState(player.position)
  useEffect(() => {
    setPosition(player.position)
    if (!state.playing) return
    let frame = requestAnimationFrame(function tick() {
      setPosition(player.position)
      frame = requestAnimationFrame(tick)
    })
    return () => cancelAnimationFrame(frame)
  }, [player, state])
  return { ...state, position }
}
