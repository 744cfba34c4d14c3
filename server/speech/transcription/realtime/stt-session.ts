import { randomBytes } from 'node:crypto'
import type { z } from 'zod'
import { concat } from '../../../../core/concat.ts'
import {
  MAX_APPEND_AUDIO_BYTES,
  type SpeakerAttribution,
  type SpeakerSegmentMs,
  type SttServerMessage,
  sttClientMessageSchema,
} from '../../../../schema/index.ts'
import { SpeakerTrackerUnavailableError } from '../../../engine/diarization/online-segmented.ts'
import {
  groupSegments,
  type RecognizedWord,
  type Recognizer,
  RecognizerUnavailableError,
  type StreamingTranscriber,
  type Transcription,
  type WarmTranscriber,
} from '../../../engine/recognition/index.ts'
import type { GateOptions, StreamingVad, VadEvent } from '../../../engine/vad/index.ts'
import { speakerLabel } from '../diarization.ts'
import { FrameIntake } from './frame-intake.ts'
import { confirmed, wordsAfter } from './live-words.ts'
import { base64DecodedLength, ENGINE_RATE, isBase64, PcmInput } from './pcm-input.ts'
import { SampleBuffer } from './sample-buffer.ts'
import { type ChangeWatch, changeCheckDue, confirmedChange } from './speaker-change.ts'
import {
  applySessionConfig,
  configIssue,
  type DiarizationStatus,
  SessionConfigError,
  type SttSettings,
  sessionObject,
} from './stt-config.ts'
import { itemBounds, speakerGroups, type TurnSpeakers } from './turn-splitting.ts'

export type { TurnSpeakers } from './turn-splitting.ts'

/** The socket operations a session needs; `ws`'s WebSocket satisfies it. */
export interface SttSocket {
  send(data: string): void
  close(code: number, reason?: string): void
  pause?(): void
  resume?(): void
}

/** The online speaker tracker as a session uses it: one per session, fed finished turns in order. */
export interface SessionSpeakerTracker {
  assign(audio: Float32Array): TurnSpeakers | Promise<TurnSpeakers>
  /**
   * Where, in seconds into `audio` (the turn so far), a different speaker took over, or null. Optional: without it,
   * turns end at pauses and commits only.
   */
  speakerChange?(audio: Float32Array): number | null | Promise<number | null>
  close?(): void
}

export interface SttSessionDeps {
  recognizer: Recognizer
  createVad(opts: GateOptions): Promise<StreamingVad>
  /** Null when diarization is switched off in this deployment (status `unavailable`). */
  createTracker:
    | ((opts: { maxSpeakers: number }) => SessionSpeakerTracker | Promise<SessionSpeakerTracker>)
    | null
  settings: SttSettings
  id: string
  onError?(err: unknown, what: string): void
}

const MS = ENGINE_RATE / 1000
const toMs = (samples: number) => Math.round(samples / MS)
/** A commit needs at least 100 ms of audio. */
const MIN_COMMIT_SAMPLES = 100 * MS
/** Audio kept before speech while waiting for the detector to confirm it (its confirmation lags by ~0.3 s). */
const VAD_LOOKBACK_SAMPLES = 2 * ENGINE_RATE
/** Silence kept after the end of speech in a turn's audio. */
const TURN_TAIL_SAMPLES = 200 * MS
/** A turn of continuous speech is cut (and committed) after this long. */
export const MAX_TURN_SAMPLES = 60 * ENGINE_RATE
/** Without turn detection, at most this much audio may wait for a commit. */
export const MAX_MANUAL_BUFFER_SAMPLES = 10 * 60 * ENGINE_RATE
/**
 * Live words while a turn goes on (docs/transcription.md "Live words"): every `LIVE_STEP` of new audio the session
 * asks the streaming decoder, which has heard the turn from its start, for its best words so far; where the recognizer
 * has no streaming decoder, the speech not yet sent is decoded again instead, from `LIVE_CONTEXT` before the end of the
 * last word sent, so that the decoder starts inside the sentence (language-model history, a cepstral mean over more
 * than a word) rather than cold. Either way a word is sent once two answers in a row agree on it and on every word
 * before it (the "local agreement" rule of streaming recognizers), or once `LIVE_SETTLED` of audio after it has been
 * decoded. A decode already queued or running is never doubled, so a slow machine decodes less often.
 */
const LIVE_STEP_SAMPLES = 0.5 * ENGINE_RATE
/** Asking the streaming decoder costs a backtrace, not a decode: it is asked twice as often. */
const STREAM_STEP_SAMPLES = 0.25 * ENGINE_RATE
/** Every live decode pays for its context (~0.23 s per second of audio): 1.5 s measured 0.45 s slower words, no better. */
const LIVE_CONTEXT_SAMPLES = 0.75 * ENGINE_RATE
/** A word with this much audio decoded after it is sent even when the decodes disagree (live-words.ts). */
const LIVE_SETTLED_SAMPLES = 1.5 * ENGINE_RATE
/** Client messages waiting to be processed beyond this many bytes pause reading from the socket. */
const BACKLOG_PAUSE_BYTES = 48 * 1024 * 1024

/** Who spoke in one committed item, on the session clock, decided when it was committed. */
interface ItemSpeakers {
  speaker: number | null
  attribution: SpeakerAttribution
  segments: SpeakerSegmentMs[]
}

/** The live words of an item: what its turn's decodes agreed on so far (sent as deltas already). */
interface LiveWords {
  /** Session sample where the next word may begin: the end of the last word sent (the turn's start at first). */
  sentUpTo: number
  /** The words sent, in seconds on the session clock. */
  words: RecognizedWord[]
  /** The latest decode's words after `sentUpTo`, for the next decode to confirm. */
  pending: RecognizedWord[]
  /** Session clock when the latest decode was queued. */
  decodedAt: number
  /** A decode is queued or running. */
  busy: boolean
  /** A decode failed: no more live words; the turn's end decodes everything from `sentUpTo`. */
  failed: boolean
  /** Session sample up to which the turn's audio went to the streaming decoder; null: the turn is decoded again instead. */
  streamedUpTo: number | null
}

interface Turn {
  itemId: string
  audio: Float32Array
  /** Session clock (16 kHz samples since the first append). */
  start: number
  end: number
  /** Null when the session does not ask for diarization. */
  speakers: ItemSpeakers | null
}

type Problem = { code: string; message: string; param?: string | null; type?: string }

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`

/**
 * One realtime transcription session (docs/transcription.md): audio appends are resampled to 16 kHz, turns end at
 * pauses (server VAD), at a client commit or, with diarization, at a detected speaker change; each committed turn is
 * transcribed in order and, with diarization active, attributed to a speaker by the session's online tracker (6.4).
 */
export class SttSession {
  private settings: SttSettings
  private diarizationStatus: DiarizationStatus
  private tracker: SessionSpeakerTracker | null = null
  private input: PcmInput | null = null
  /** A call's media track, converted to the engines' rate. */
  private media: PcmInput | null = null
  private mediaDropped = false
  /** Media frames not yet handed on, and their rate. */
  private readonly gathered: Int16Array[] = []
  private gatheredSamples = 0
  private gatheredRate = 0
  private vad: StreamingVad | null = null
  /** Session sample at which the current detector's stream began. */
  private vadOrigin = 0
  /** Uncommitted audio; its end is the session clock (samples received so far). */
  private readonly buffer = new SampleBuffer()
  /** The turn that goes on, watched for a change of speaker. */
  private speech: (ChangeWatch & { itemId: string }) | null = null
  /** Live words of turns, by item id, until the item is transcribed. */
  private readonly live = new Map<string, LiveWords>()
  /** The session's warm decoder, opened at its first audio (undefined: not yet; null: the recognizer has none). */
  private warm: WarmTranscriber | null | undefined
  /** The session's streaming decoder, opened at its first audio (undefined: not yet; null: none, or it failed). */
  private stream: StreamingTranscriber | null | undefined
  private previousItemId: string | null = null
  /** Tracker speaker number → label number, in order of first appearance in the session's events. */
  private readonly labels = new Map<number, number>()
  private readonly intake: FrameIntake
  private turns: Promise<void> = Promise.resolve()
  private readonly abort = new AbortController()
  private closed = false

  constructor(
    private readonly socket: SttSocket,
    private readonly deps: SttSessionDeps,
  ) {
    this.settings = deps.settings
    this.diarizationStatus = deps.createTracker ? 'active' : 'unavailable'
    this.intake = new FrameIntake(
      socket,
      (data, isBinary) => this.handle(data, isBinary),
      (err) => {
        this.deps.onError?.(err, 'realtime message')
        this.error({
          code: 'server_error',
          message: 'The message could not be processed.',
          type: 'server_error',
        })
      },
      BACKLOG_PAUSE_BYTES,
    )
  }

  /** Samples received so far: the session clock. */
  private get clock() {
    return this.buffer.end
  }

  /** Sends `session.created` (and `session.updated` when the credential carried a diarization request). */
  async start() {
    await this.configure()
    this.send({ type: 'session.created', session: this.sessionObject() })
    if (this.settings.diarization) this.send({ type: 'session.updated', session: this.sessionObject() })
  }

  /** Handles one client frame; frames are processed strictly in order. */
  receive(data: Buffer, isBinary: boolean) {
    if (this.closed) return
    this.intake.receive(data, isBinary)
  }

  /**
   * Audio of a media track (a WebRTC call's, decoded): PCM16 mono at `rate`, 10 ms frames gathered into 100 ms pieces
   * (as the socket's appends usually come: each piece costs the detector and decoders a step), then handled in order
   * with the events. Without turn detection, audio past the manual buffer's 10 minutes is dropped (said once).
   */
  receiveMedia(samples: Int16Array, rate: number) {
    if (this.closed) return
    if (this.gathered.length > 0 && this.gatheredRate !== rate) this.flushMedia()
    this.gatheredRate = rate
    this.gathered.push(samples)
    this.gatheredSamples += samples.length
    if (this.gatheredSamples >= rate / 10) this.flushMedia()
  }

  private flushMedia() {
    const piece = concat(this.gathered.splice(0), Int16Array)
    const rate = this.gatheredRate
    this.gatheredSamples = 0
    this.intake.enqueue(piece.byteLength, async () => {
      if (this.closed) return
      if (this.media?.rate !== rate) {
        this.media?.close()
        this.media = await PcmInput.create(rate)
      }
      const incoming = this.media.pushSamples(piece)
      if (this.overflowsManualBuffer(incoming.length)) {
        if (!this.mediaDropped)
          this.error({
            code: 'input_audio_buffer_full',
            message:
              'Without turn detection at most 10 minutes of audio may wait for a commit; commit or clear.',
            param: null,
          })
        this.mediaDropped = true
        return
      }
      this.mediaDropped = false
      await this.feed(incoming)
    })
  }

  /** The socket closed: stop all work at once. */
  dispose() {
    if (this.closed) return
    this.closed = true
    this.abort.abort()
    void this.warm?.close()
    void this.stream?.close()
    this.input?.close()
    this.media?.close()
    this.tracker?.close?.()
  }

  private async handle(data: Buffer, isBinary: boolean) {
    if (this.closed) return
    if (isBinary) {
      return this.error({
        code: 'invalid_message',
        message: 'Binary frames are not accepted; send JSON events.',
      })
    }
    let json: unknown
    try {
      json = JSON.parse(data.toString('utf8'))
    } catch {
      return this.error({ code: 'invalid_json', message: 'The frame is not valid JSON.' })
    }
    const parsed = sttClientMessageSchema.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0] as z.core.$ZodIssue
      const type = (json as { type?: unknown } | null)?.type
      if (issue.path.length === 0 || (issue.path[0] === 'type' && issue.code !== 'unrecognized_keys')) {
        return this.error({
          code: 'unknown_event_type',
          message: `Unknown event type ${JSON.stringify(type)}; expected session.update, input_audio_buffer.append, input_audio_buffer.commit or input_audio_buffer.clear.`,
          param: 'type',
        })
      }
      const err = configIssue(issue, '')
      return this.error({ code: 'invalid_value', message: err.message, param: err.param })
    }
    const message = parsed.data
    switch (message.type) {
      case 'session.update':
      case 'transcription_session.update':
        return this.update(message.session)
      case 'input_audio_buffer.append':
        return this.append(message.audio)
      case 'input_audio_buffer.commit':
        return this.commit()
      case 'input_audio_buffer.clear':
        return this.clear()
    }
  }

  private async update(config: Parameters<typeof applySessionConfig>[1]) {
    let next: SttSettings
    try {
      next = applySessionConfig(this.settings, config)
    } catch (err) {
      if (err instanceof SessionConfigError)
        return this.error({ code: 'invalid_value', message: err.message, param: err.param })
      throw err
    }
    const previous = this.settings
    this.settings = next
    await this.configure(previous)
    this.send({ type: 'session.updated', session: this.sessionObject() })
  }

  /** Brings the input converter, the turn detector and the tracker in line with the settings. */
  private async configure(previous?: SttSettings) {
    if (!this.input || this.input.rate !== this.settings.rate) {
      if (this.input) {
        this.buffer.push(this.input.flush())
        this.input.close()
      }
      this.input = await PcmInput.create(this.settings.rate)
    }
    const td = this.settings.turnDetection
    if (!td) this.vad = null
    else if (!this.vad || JSON.stringify(td) !== JSON.stringify(previous?.turnDetection))
      await this.restartVad()
    const d = this.settings.diarization
    if (d?.enabled && !this.tracker && this.deps.createTracker && this.diarizationStatus === 'active') {
      try {
        this.tracker = await this.deps.createTracker({ maxSpeakers: d.maxSpeakers })
      } catch (err) {
        this.deps.onError?.(err, 'speaker tracker')
        // A model that cannot be had is diarization this deployment lacks (as health says); anything else is a fault.
        this.diarizationStatus = err instanceof SpeakerTrackerUnavailableError ? 'unavailable' : 'degraded'
      }
    }
  }

  private async restartVad() {
    const td = this.settings.turnDetection
    if (!td) return
    this.vad = await this.deps.createVad({
      threshold: td.threshold,
      minSilenceSeconds: td.silenceDurationMs / 1000,
    })
    this.vadOrigin = this.clock
    if (this.speech) this.live.delete(this.speech.itemId)
    this.speech = null
  }

  private async append(audio: string) {
    if (!isBase64(audio)) {
      return this.error({
        code: 'invalid_value',
        message: 'audio must be base64 of PCM16 little-endian mono.',
        param: 'audio',
      })
    }
    const size = base64DecodedLength(audio)
    if (size > MAX_APPEND_AUDIO_BYTES) {
      return this.error({
        code: 'audio_append_too_large',
        message: `One append may carry at most ${MAX_APPEND_AUDIO_BYTES} bytes (15 MiB) of decoded audio; this one had ${size}.`,
        param: 'audio',
      })
    }
    if (this.overflowsManualBuffer(Math.ceil(((size / 2) * ENGINE_RATE) / this.settings.rate))) {
      return this.error({
        code: 'input_audio_buffer_full',
        message:
          'Without turn detection at most 10 minutes of audio may wait for a commit; commit or clear first.',
        param: 'audio',
      })
    }
    const samples = (this.input as PcmInput).push(Buffer.from(audio, 'base64'))
    await this.feed(samples)
  }

  /** Without turn detection, `incoming` more samples would pass the 10 minutes that may wait for a commit. */
  private overflowsManualBuffer(incoming: number): boolean {
    return !this.settings.turnDetection && this.buffer.length + incoming > MAX_MANUAL_BUFFER_SAMPLES
  }

  /** New 16 kHz audio: buffered, and passed through the turn detector when there is one. */
  private async feed(samples: Float32Array) {
    if (samples.length === 0) return
    // The decoders load their models from the first audio on, before speech is detected in it.
    this.openWarm()
    this.openStream()
    this.buffer.push(samples)
    if (!this.vad) return
    const events = await this.vad.push(samples)
    for (const event of events) await this.onVad(event)
    if (this.speech) {
      if (this.clock - this.speech.start >= MAX_TURN_SAMPLES) await this.endTurn(this.clock, 'cut')
      else await this.checkSpeakerChange()
    } else this.buffer.dropBefore(this.clock - VAD_LOOKBACK_SAMPLES - this.prefixSamples())
    this.recognizeLive()
  }

  /**
   * Live words: while a turn goes on, its audio goes to the streaming decoder as it arrives (or, without one, its
   * speech not yet sent is decoded again), every step the words two answers agree on are sent as deltas of the turn's
   * item at once, and the turn's end decodes only the rest. Decodes queue with the committed items, so events stay in
   * order.
   */
  private recognizeLive() {
    const speech = this.speech
    if (!speech) return
    let live = this.live.get(speech.itemId)
    const stream = this.openStream()
    if (!live) {
      live = {
        sentUpTo: speech.start,
        words: [],
        pending: [],
        decodedAt: speech.start,
        busy: false,
        failed: false,
        streamedUpTo: stream ? speech.start : null,
      }
      this.live.set(speech.itemId, live)
      stream?.restart()
    }
    if (stream && live.streamedUpTo !== null) {
      stream.push(this.buffer.peek(live.streamedUpTo, this.clock))
      live.streamedUpTo = this.clock
    }
    const step = live.streamedUpTo === null ? LIVE_STEP_SAMPLES : STREAM_STEP_SAMPLES
    if (live.busy || live.failed || this.clock - live.decodedAt < step) return
    live.busy = true
    live.decodedAt = this.clock
    const itemId = speech.itemId
    const turnStart = speech.start
    const upTo = this.clock
    let heard: () => Promise<RecognizedWord[]>
    if (stream && live.streamedUpTo !== null) {
      heard = async () => wordsAfter(await stream.hypothesis(), turnStart, live.sentUpTo)
    } else {
      const from = Math.max(turnStart, live.sentUpTo - LIVE_CONTEXT_SAMPLES)
      const audio = this.buffer.peek(from, upTo)
      heard = async () => wordsAfter(await this.decode(audio), from, live.sentUpTo)
    }
    this.turns = this.turns.then(() => this.decodeLive(itemId, live, heard, upTo))
  }

  /** One step of live words: `heard` gives the words after those sent, decoded from audio up to session sample `upTo`. */
  private async decodeLive(
    itemId: string,
    live: LiveWords,
    heard: () => Promise<RecognizedWord[]>,
    upTo: number,
  ) {
    // A turn that has ended meanwhile is left to its end's decode, which knows where its item stops.
    const current = () => !this.closed && this.speech?.itemId === itemId && this.live.get(itemId) === live
    try {
      if (!current()) return
      const words = await heard()
      if (!current()) return
      const settled = (upTo - LIVE_SETTLED_SAMPLES) / ENGINE_RATE
      const stable = confirmed(live.pending, words, settled)
      live.pending = words.slice(stable.length)
      this.sendWords(itemId, live.words, stable)
      const last = stable.at(-1)
      if (last) live.sentUpTo = Math.round(last.end * ENGINE_RATE)
    } catch (err) {
      if (this.closed) return
      this.deps.onError?.(err, 'realtime live recognition')
      if (live.streamedUpTo !== null) {
        // The streaming decoder failed: this turn and the next are decoded again instead.
        live.streamedUpTo = null
        void this.stream?.close()
        this.stream = null
      } else {
        // The turn's end decodes this audio again and reports a failure there, if it fails again.
        live.failed = true
      }
    } finally {
      live.busy = false
    }
  }

  /** Sends `words` as one delta of the item, after the item's words `sent` (which it then holds too). */
  private sendWords(itemId: string, sent: RecognizedWord[], words: readonly RecognizedWord[]) {
    if (words.length === 0) return
    const text = words.map((w) => w.text).join(' ')
    this.send({
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: itemId,
      content_index: 0,
      delta: sent.length === 0 ? text : ` ${text}`,
    })
    sent.push(...words)
  }

  private openStream(): StreamingTranscriber | null {
    if (this.stream === undefined && !this.closed) this.stream = this.deps.recognizer.stream?.() ?? null
    return this.stream ?? null
  }

  private openWarm(): WarmTranscriber | null {
    if (this.warm === undefined && !this.closed) this.warm = this.deps.recognizer.warm?.() ?? null
    return this.warm ?? null
  }

  /**
   * Decodes with the session's warm decoder (docs/recognition.md); when it fails the recognizer decodes instead, and
   * the next decode opens a new warm one.
   */
  private async decode(audio: Float32Array): Promise<Transcription> {
    const opts = { signal: this.abort.signal }
    const warm = this.openWarm()
    if (!warm) return this.deps.recognizer.transcribe(audio, opts)
    try {
      return await warm.transcribe(audio, opts)
    } catch (err) {
      if (this.closed) throw err
      this.deps.onError?.(err, 'realtime warm decoder')
      if (this.warm === warm) this.warm = undefined
      void warm.close()
      return this.deps.recognizer.transcribe(audio, opts)
    }
  }

  private prefixSamples() {
    return (this.settings.turnDetection?.prefixPaddingMs ?? 0) * MS
  }

  private async onVad(event: VadEvent) {
    const at = this.vadOrigin + Math.round(event.time * ENGINE_RATE)
    if (event.type === 'start') {
      if (this.speech) return
      const start = Math.max(this.buffer.start, at - this.prefixSamples())
      this.buffer.dropBefore(start)
      this.speech = { itemId: newId('item'), start, checkedAt: at, candidate: null }
      this.send({
        type: 'input_audio_buffer.speech_started',
        audio_start_ms: toMs(start),
        item_id: this.speech.itemId,
      })
      return
    }
    if (!this.speech) return
    this.send({
      type: 'input_audio_buffer.speech_stopped',
      audio_end_ms: toMs(at),
      item_id: this.speech.itemId,
    })
    await this.endTurn(Math.max(this.speech.start, Math.min(this.clock, at + TURN_TAIL_SAMPLES)), 'pause')
  }

  /**
   * Ends the current speech turn at session sample `end` and commits its audio as one item; audio after `end` stays in
   * the buffer. `pause`: the detector heard the speech end. `cut`: the turn was cut while speech goes on (a speaker
   * change, or the longest turn), so the rest opens the next turn at once. `commit`: the client committed, and the
   * detector starts afresh.
   */
  private async endTurn(
    end: number,
    how: 'pause' | 'cut' | 'commit',
    endedBy: 'endpoint' | 'change' = 'endpoint',
  ) {
    const speech = this.speech
    if (!speech) return
    this.speech = null
    // Audio whose words were sent live stays in this turn: they were sent as this item's.
    const sentUpTo = this.live.get(speech.itemId)?.sentUpTo ?? speech.start
    end = Math.min(this.clock, Math.max(end, sentUpTo))
    const audio = this.buffer.take(speech.start, end)
    await this.commitTurn(speech.itemId, audio, speech.start, endedBy, sentUpTo)
    if (how === 'commit') await this.restartVad()
    else if (how === 'cut') {
      this.speech = {
        itemId: newId('item'),
        start: end,
        checkedAt: this.clock,
        candidate: null,
      }
      this.send({
        type: 'input_audio_buffer.speech_started',
        audio_start_ms: toMs(end),
        item_id: this.speech.itemId,
      })
    }
  }

  private async commit() {
    if (this.speech) return this.endTurn(this.clock, 'commit')
    if (this.settings.turnDetection || this.buffer.length < MIN_COMMIT_SAMPLES) {
      return this.error({
        code: 'input_audio_buffer_commit_empty',
        message: this.settings.turnDetection
          ? 'There is no speech in the buffer to commit.'
          : 'The buffer holds less than 100 ms of audio; append audio before committing.',
      })
    }
    const start = this.buffer.start
    await this.commitTurn(newId('item'), this.buffer.take(start, this.clock), start, 'endpoint')
  }

  private async clear() {
    if (this.speech) this.live.delete(this.speech.itemId)
    this.speech = null
    this.buffer.dropBefore(this.clock)
    if (this.vad) await this.restartVad()
    this.send({ type: 'input_audio_buffer.cleared' })
  }

  /** With diarization active, a long turn is checked for a change of speaker, which ends it (speaker-change.ts). */
  private async checkSpeakerChange() {
    const speech = this.speech
    const tracker = this.tracker
    if (!speech || !tracker?.speakerChange || !this.diarizing()) return
    const clock = this.clock
    const due = changeCheckDue(speech, clock)
    if (!due) return
    speech.checkedAt = clock
    let change: number | null
    try {
      change = await tracker.speakerChange(this.buffer.peek(due.from, clock))
    } catch (err) {
      return this.degrade(err)
    }
    if (this.speech !== speech) return
    const at = confirmedChange(speech, due.from, clock, change)
    if (at !== null) await this.endTurn(at, 'cut', 'change')
  }

  /**
   * Commits a finished turn. With diarization on, the tracker attributes it first; when it finds more than one speaker
   * holding the floor for at least a second, the turn is split there into one item per speaker (a detected change
   * ends the turn, 6.4). Each item is then queued for transcription, in order.
   */
  private async commitTurn(
    itemId: string,
    audio: Float32Array,
    start: number,
    endedBy: 'endpoint' | 'change',
    sentUpTo = start,
  ) {
    const items: Turn[] = []
    if (!this.diarizing()) items.push({ itemId, audio, start, end: start + audio.length, speakers: null })
    else {
      const result = await this.attribute(audio)
      const groups =
        result && result.speaker !== null ? speakerGroups(result, audio.length / ENGINE_RATE) : []
      if (groups.length === 0) {
        items.push({
          itemId,
          audio,
          start,
          end: start + audio.length,
          speakers: unattributed(start, start + audio.length),
        })
      }
      // The first item holds at least the audio of the words sent live (they were sent as that item's).
      const early = Math.min(audio.length, sentUpTo - start)
      const bounded = itemBounds(groups, audio.length, early, ENGINE_RATE)
      bounded.forEach(({ group, from, to }, k) => {
        const last = k === bounded.length - 1
        items.push({
          itemId: k === 0 ? itemId : newId('item'),
          audio: audio.subarray(from, to),
          start: start + from,
          end: start + to,
          speakers: {
            speaker: this.label(group.speaker),
            attribution: last && endedBy === 'endpoint' ? 'endpoint' : 'commit',
            segments: group.segments.map((seg) => ({
              speaker: speakerLabel(this.label(seg.speaker)),
              segment_start_ms: toMs(start + Math.max(from, Math.round(seg.start * ENGINE_RATE))),
              segment_end_ms: toMs(start + Math.min(to, Math.round(seg.end * ENGINE_RATE))),
            })),
          },
        })
      })
    }
    for (const item of items) {
      this.send({
        type: 'input_audio_buffer.committed',
        item_id: item.itemId,
        previous_item_id: this.previousItemId,
      })
      this.previousItemId = item.itemId
      this.turns = this.turns.then(() => this.process(item))
    }
  }

  private label(trackerSpeaker: number): number {
    let n = this.labels.get(trackerSpeaker)
    if (n === undefined) {
      n = this.labels.size
      this.labels.set(trackerSpeaker, n)
    }
    return n
  }

  /** The tracker's view of one finished turn; null once diarization has degraded or when it fails now. */
  private async attribute(audio: Float32Array): Promise<TurnSpeakers | null> {
    const tracker = this.tracker
    if (!tracker || this.diarizationStatus !== 'active') return null
    try {
      return await tracker.assign(audio)
    } catch (err) {
      this.degrade(err)
      return null
    }
  }

  private diarizing() {
    return Boolean(this.settings.diarization?.enabled) && this.diarizationStatus !== 'unavailable'
  }

  /** Transcribes one committed item: deltas, then completed, then (with diarization) its speakers event. */
  private async process(turn: Turn) {
    if (this.closed) return
    let transcript: string
    // Words sent live were sent already; only the rest is decoded now, from a little before it as live decodes are.
    const live = this.live.get(turn.itemId)
    this.live.delete(turn.itemId)
    const sent = live?.words ?? []
    const sentUpTo = Math.min(turn.end, Math.max(turn.start, live?.sentUpTo ?? turn.start))
    const from = Math.max(turn.start, sentUpTo - LIVE_CONTEXT_SAMPLES)
    try {
      // A sliver of audio (a turn cut right at its start) holds no words.
      const result =
        turn.end - sentUpTo < MIN_COMMIT_SAMPLES
          ? { text: '', words: [] }
          : await this.decode(turn.audio.subarray(from - turn.start))
      if (this.closed) return
      this.sendWords(turn.itemId, sent, wordsAfter(result, from, sentUpTo))
      transcript = sent.map((w) => w.text).join(' ')
      this.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: turn.itemId,
        content_index: 0,
        transcript,
        audio_start_ms: toMs(turn.start),
        audio_end_ms: toMs(turn.end),
        segments: groupSegments(sent).map((seg) => ({
          text: seg.text,
          segment_start_ms: Math.round(seg.start * 1000),
          segment_end_ms: Math.round(seg.end * 1000),
        })),
      })
    } catch (err) {
      if (this.closed) return
      this.deps.onError?.(err, 'realtime transcription')
      const unavailable = err instanceof RecognizerUnavailableError
      this.send({
        type: 'conversation.item.input_audio_transcription.failed',
        item_id: turn.itemId,
        content_index: 0,
        error: {
          type: 'server_error',
          code: unavailable ? 'recognition_unavailable' : 'transcription_failed',
          message: (err as Error).message,
          param: null,
        },
      })
      return
    }
    if (!turn.speakers) return
    this.send({
      type: 'conversation.item.input_audio_transcription.speakers',
      item_id: turn.itemId,
      speaker: turn.speakers.speaker === null ? null : speakerLabel(turn.speakers.speaker),
      text: transcript,
      attribution: turn.speakers.attribution,
      segments: turn.speakers.segments,
    })
  }

  /** Diarization stopped mid-session (6.4): status `degraded`, later turns unattributed, transcription goes on. */
  private degrade(err: unknown) {
    if (this.diarizationStatus === 'degraded') return
    this.deps.onError?.(err, 'speaker tracker')
    this.diarizationStatus = 'degraded'
    this.tracker?.close?.()
    this.tracker = null
    if (!this.closed) this.send({ type: 'session.updated', session: this.sessionObject() })
  }

  private sessionObject() {
    return sessionObject(this.settings, this.diarizationStatus, this.deps.id)
  }

  private error(problem: Problem) {
    this.send({
      type: 'error',
      error: {
        type: problem.type ?? 'invalid_request_error',
        code: problem.code,
        message: problem.message,
        param: problem.param ?? null,
      },
    })
  }

  private send(message: DistributiveOmit<SttServerMessage, 'event_id'>) {
    if (this.closed) return
    this.socket.send(JSON.stringify({ event_id: newId('event'), ...message }))
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

const unattributed = (start: number, end: number): ItemSpeakers => ({
  speaker: null,
  attribution: 'unattributed',
  segments: [{ speaker: null, segment_start_ms: toMs(start), segment_end_ms: toMs(end) }],
})
