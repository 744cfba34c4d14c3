import { randomBytes } from 'node:crypto'
import type { z } from 'zod'
import {
  MAX_APPEND_AUDIO_BYTES,
  type SpeakerAttribution,
  type SpeakerSegmentMs,
  type SttServerMessage,
  sttClientMessageSchema,
} from '../../../schema/index.ts'
import { groupSegments, type Recognizer, RecognizerUnavailableError } from '../../engine/recognition/index.ts'
import type { GateOptions, StreamingVad, VadEvent } from '../../engine/vad/index.ts'
import { quietestCut } from '../transcripts/chunks.ts'
import { speakerLabel } from '../transcripts/diarization.ts'
import { FrameIntake } from './frame-intake.ts'
import { base64DecodedLength, ENGINE_RATE, isBase64, PcmInput } from './pcm-input.ts'
import { SampleBuffer } from './sample-buffer.ts'
import {
  CHANGE_SETTLED_SAMPLES,
  type ChangeWatch,
  changeCheckDue,
  confirmedChange,
} from './speaker-change.ts'
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
 * Words while a turn goes on: once this much of the turn's audio waits unrecognized, the part up to the quietest
 * 100 ms between `EARLY_MIN` into it and `EARLY_MARGIN` before now is recognized and its words sent as deltas.
 * Pieces of 2.5–3.75 s recognize as well as whole turns on the test sentences (word error 0.62 against 0.67 over
 * six); pieces of 1.5–2.25 s were clearly worse (0.76).
 */
const EARLY_PIECE_SAMPLES = 4 * ENGINE_RATE
const EARLY_MIN_SAMPLES = 2.5 * ENGINE_RATE
const EARLY_MARGIN_SAMPLES = 0.25 * ENGINE_RATE
/** With speaker attribution active, early recognition stays behind what a speaker change may still cut. */
const EARLY_DIARIZED_MARGIN_SAMPLES = CHANGE_SETTLED_SAMPLES
/** Client messages waiting to be processed beyond this many bytes pause reading from the socket. */
const BACKLOG_PAUSE_BYTES = 48 * 1024 * 1024

/** Who spoke in one committed item, on the session clock, decided when it was committed. */
interface ItemSpeakers {
  speaker: number | null
  attribution: SpeakerAttribution
  segments: SpeakerSegmentMs[]
}

/** What was recognized of an item while its turn went on (its deltas are already sent). */
interface EarlyWords {
  /** Session sample up to which the item's audio was recognized, contiguously from its start. */
  upTo: number
  texts: string[]
  segments: Array<{ text: string; segment_start_ms: number; segment_end_ms: number }>
  /** A piece failed: later pieces are not sent, and the turn's end recognizes everything from `upTo`. */
  failed: boolean
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
  private vad: StreamingVad | null = null
  /** Session sample at which the current detector's stream began. */
  private vadOrigin = 0
  /** Uncommitted audio; its end is the session clock (samples received so far). */
  private readonly buffer = new SampleBuffer()
  /** The turn that goes on, watched for a change of speaker. */
  private speech:
    | (ChangeWatch & {
        itemId: string
        /** Session sample up to which the turn's audio has been sent for early recognition. */
        recognized: number
      })
    | null = null
  /** Words recognized while turns went on, by item id, until the item is transcribed. */
  private readonly early = new Map<string, EarlyWords>()
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

  /** The socket closed: stop all work at once. */
  dispose() {
    if (this.closed) return
    this.closed = true
    this.abort.abort()
    this.input?.close()
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
        this.diarizationStatus = 'degraded'
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
    if (this.speech) this.early.delete(this.speech.itemId)
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
    if (!this.settings.turnDetection) {
      const incoming = Math.ceil(((size / 2) * ENGINE_RATE) / this.settings.rate)
      if (this.buffer.length + incoming > MAX_MANUAL_BUFFER_SAMPLES) {
        return this.error({
          code: 'input_audio_buffer_full',
          message:
            'Without turn detection at most 10 minutes of audio may wait for a commit; commit or clear first.',
          param: 'audio',
        })
      }
    }
    const samples = (this.input as PcmInput).push(Buffer.from(audio, 'base64'))
    await this.feed(samples)
  }

  /** New 16 kHz audio: buffered, and passed through the turn detector when there is one. */
  private async feed(samples: Float32Array) {
    if (samples.length === 0) return
    this.buffer.push(samples)
    if (!this.vad) return
    const events = await this.vad.push(samples)
    for (const event of events) await this.onVad(event)
    if (this.speech) {
      if (this.clock - this.speech.start >= MAX_TURN_SAMPLES) await this.endTurn(this.clock, 'cut')
      else await this.checkSpeakerChange()
    } else this.buffer.dropBefore(this.clock - VAD_LOOKBACK_SAMPLES - this.prefixSamples())
    this.recognizeEarly()
  }

  /**
   * Words sooner: while a turn goes on, its audio is recognized piece by piece (cut at the quietest 100 ms, never in
   * the last 0.25 s) and each piece's words are sent as deltas of the turn's item at once; the turn's end recognizes
   * only the rest. Pieces queue with the committed items, so events stay in order.
   */
  private recognizeEarly() {
    const speech = this.speech
    if (!speech || this.clock - speech.recognized < EARLY_PIECE_SAMPLES) return
    const from = speech.recognized
    const low = from + EARLY_MIN_SAMPLES
    const splitting = this.diarizing() && this.diarizationStatus === 'active'
    const high = this.clock - (splitting ? EARLY_DIARIZED_MARGIN_SAMPLES : EARLY_MARGIN_SAMPLES)
    if (high <= low) return
    const cut = low + quietestCut(this.buffer.peek(low, high), ENGINE_RATE)
    const audio = this.buffer.peek(from, cut)
    speech.recognized = cut
    const itemId = speech.itemId
    if (!this.early.has(itemId))
      this.early.set(itemId, { upTo: from, texts: [], segments: [], failed: false })
    this.turns = this.turns.then(() => this.processEarly(itemId, audio, from))
  }

  private async processEarly(itemId: string, audio: Float32Array, start: number) {
    const early = this.early.get(itemId)
    if (this.closed || !early || early.failed || early.upTo !== start) return
    let result: Awaited<ReturnType<Recognizer['transcribe']>>
    try {
      result = await this.deps.recognizer.transcribe(audio, { signal: this.abort.signal })
    } catch (err) {
      if (this.closed) return
      // The turn's end recognizes this audio again and reports a failure there, if it fails again.
      this.deps.onError?.(err, 'realtime early recognition')
      early.failed = true
      return
    }
    if (this.closed) return
    const segments = groupSegments(result.words).map((seg) => ({
      text: seg.text,
      segment_start_ms: toMs(start) + Math.round(seg.start * 1000),
      segment_end_ms: toMs(start) + Math.round(seg.end * 1000),
    }))
    for (const seg of segments) {
      this.send({
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: itemId,
        content_index: 0,
        delta: early.texts.length === 0 ? seg.text : ` ${seg.text}`,
      })
      early.texts.push(seg.text)
      early.segments.push(seg)
    }
    early.upTo = start + audio.length
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
      this.speech = { itemId: newId('item'), start, checkedAt: at, candidate: null, recognized: start }
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
    // Audio already sent for early recognition stays in this turn: its words were sent as this item's.
    end = Math.min(this.clock, Math.max(end, speech.recognized))
    const audio = this.buffer.take(speech.start, end)
    await this.commitTurn(speech.itemId, audio, speech.start, endedBy, speech.recognized)
    if (how === 'commit') await this.restartVad()
    else if (how === 'cut') {
      this.speech = {
        itemId: newId('item'),
        start: end,
        checkedAt: this.clock,
        candidate: null,
        recognized: end,
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
    if (this.speech) this.early.delete(this.speech.itemId)
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
    recognized = start,
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
      // The first item holds at least what was recognized early (its words were sent as that item's).
      const early = Math.min(audio.length, recognized - start)
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
    // Words recognized while the turn went on were sent already; only the rest is recognized now.
    const early = this.early.get(turn.itemId)
    this.early.delete(turn.itemId)
    const offset = early ? Math.min(turn.audio.length, Math.max(0, early.upTo - turn.start)) : 0
    const rest = turn.audio.subarray(offset)
    try {
      // A sliver of audio (a turn cut right at its start) holds no words.
      const result =
        rest.length < MIN_COMMIT_SAMPLES
          ? { text: '', words: [] }
          : await this.deps.recognizer.transcribe(rest, { signal: this.abort.signal })
      if (this.closed) return
      const restStart = turn.start + offset
      const segments = groupSegments(result.words).map((seg) => ({
        text: seg.text,
        segment_start_ms: toMs(restStart) + Math.round(seg.start * 1000),
        segment_end_ms: toMs(restStart) + Math.round(seg.end * 1000),
      }))
      const sentBefore = early?.texts.length ?? 0
      segments.forEach((seg, i) => {
        this.send({
          type: 'conversation.item.input_audio_transcription.delta',
          item_id: turn.itemId,
          content_index: 0,
          delta: i === 0 && sentBefore === 0 ? seg.text : ` ${seg.text}`,
        })
      })
      const all = [...(early?.segments ?? []), ...segments]
      transcript = all.map((seg) => seg.text).join(' ')
      this.send({
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: turn.itemId,
        content_index: 0,
        transcript,
        audio_start_ms: toMs(turn.start),
        audio_end_ms: toMs(turn.end),
        segments: all,
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
