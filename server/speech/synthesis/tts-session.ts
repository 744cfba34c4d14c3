import { PhraseBuffer } from '../../../core/phrase-buffer.ts'
import {
  MAX_APPEND_CHARS,
  MAX_SESSION_CHARS,
  MAX_TTS_FRAME_BYTES,
  SAMPLE_RATE,
  type TtsServerMessage,
  ttsClientMessageSchema,
} from '../../../schema/index.ts'
import { type DecodingSettings, type Synthesizer, speak, type VoiceParams } from '../../engine/index.ts'
import { fixedSizePieces, pcmBytes } from './audio-out.ts'
import { asksForSilence, nothingToSpeak, untilSound } from './unspoken.ts'

/** The socket operations a session needs; `ws`'s WebSocket satisfies it. */
export interface SessionSocket {
  send(data: string, cb: (err?: Error) => void): void
  close(code: number, reason?: string): void
}

export interface TtsSessionOptions {
  synthesizer: Synthesizer
  voice: VoiceParams
  language: string
  speed: number
  maxNewTokens: number | null
  /** Sampled prosody (contract 2.8); the session serves the second-generation model only. */
  decoding?: DecodingSettings
  idleMs: number
  maxSessionMs: number
}

/** Close codes: 1000 after `speech.audio.done`, 1009 for an oversized frame, 1008 for every other ending by policy. */
const CLOSE_NORMAL = 1000
const CLOSE_POLICY = 1008
const CLOSE_TOO_BIG = 1009

type Problem = { code: string; message: string; param?: string; type?: string }

/**
 * One text-input speech session (docs/realtime-tts.md): text arrives in appends, complete phrases are synthesized in
 * order while more text is still arriving, and each phrase's audio goes out as 4,800-byte PCM deltas (the phrase's
 * last delta may be shorter, so nothing waits on text that has not come yet).
 */
export class TtsSession {
  private readonly phrases = new PhraseBuffer()
  private readonly queue: string[] = []
  private readonly abort = new AbortController()
  private chars = 0
  private samples = 0
  private inputDone = false
  private speaking = false
  private closed = false
  private idleTimer: NodeJS.Timeout | undefined
  private readonly sessionTimer: NodeJS.Timeout

  constructor(
    private readonly socket: SessionSocket,
    private readonly opts: TtsSessionOptions,
    private readonly onEnd: () => void,
  ) {
    this.sessionTimer = setTimeout(
      () =>
        this.fail({
          code: 'session_duration_exceeded',
          message: 'The session reached its duration limit (2 hours).',
        }),
      opts.maxSessionMs,
    )
    this.touch()
  }

  /** Handles one client frame. */
  receive(data: Buffer, isBinary: boolean) {
    if (this.closed || this.abort.signal.aborted) return
    this.touch()
    if (data.length > MAX_TTS_FRAME_BYTES) {
      this.fail(
        { code: 'frame_too_large', message: `Frames are limited to ${MAX_TTS_FRAME_BYTES} bytes.` },
        CLOSE_TOO_BIG,
      )
      return
    }
    if (isBinary)
      return this.reject({
        code: 'invalid_message',
        message: 'Binary frames are not accepted; send JSON text.',
      })
    let json: unknown
    try {
      json = JSON.parse(data.toString('utf8'))
    } catch {
      return this.reject({ code: 'invalid_message', message: 'The frame is not valid JSON.' })
    }
    const parsed = ttsClientMessageSchema.safeParse(json)
    if (!parsed.success) {
      return this.reject({
        code: 'invalid_message',
        message:
          'Expected {"type":"input_text.append","text":"…"}, {"type":"input_text.commit"} or {"type":"input_text.done"}.',
      })
    }
    if (this.inputDone) {
      return this.reject({
        code: 'input_already_done',
        message: 'input_text.done was already sent; no more input is accepted.',
      })
    }
    const message = parsed.data
    if (message.type === 'input_text.append') this.append(message.text)
    else if (message.type === 'input_text.commit') this.enqueue(this.phrases.flush())
    else {
      this.inputDone = true
      this.enqueue(this.phrases.flush())
    }
  }

  /** The client went away or the server is closing: stop synthesis at once. */
  dispose() {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.idleTimer)
    clearTimeout(this.sessionTimer)
    this.abort.abort()
    this.onEnd()
  }

  private append(text: string) {
    if (text.length > MAX_APPEND_CHARS) {
      return this.fail({
        code: 'append_too_large',
        message: `One append may carry at most ${MAX_APPEND_CHARS} characters; this one had ${text.length}.`,
        param: 'text',
      })
    }
    if (this.chars + text.length > MAX_SESSION_CHARS) {
      return this.fail({
        code: 'session_text_limit_exceeded',
        message: `A session may carry at most ${MAX_SESSION_CHARS} characters in total.`,
        param: 'text',
      })
    }
    this.chars += text.length
    this.enqueue(this.phrases.append(text))
  }

  private enqueue(phrases: string[]) {
    this.queue.push(...phrases)
    if (!this.speaking) void this.speak()
  }

  /** Synthesizes queued phrases one after another, so audio stays in text order. */
  private async speak() {
    this.speaking = true
    try {
      for (let phrase = this.queue.shift(); phrase !== undefined; phrase = this.queue.shift()) {
        const spoken = await untilSound(
          speak(this.opts.synthesizer, {
            text: phrase,
            voice: this.opts.voice,
            language: this.opts.language,
            speed: this.opts.speed,
            markup: true,
            maxNewTokens: this.opts.maxNewTokens,
            decoding: this.opts.decoding,
            signal: this.abort.signal,
          }),
        )
        // A phrase that gave no sound is said so, as the speech route's 400 says it; the session goes on.
        if (spoken.silent && !asksForSilence(phrase, true) && !this.abort.signal.aborted) {
          this.reject({
            code: 'nothing_to_speak',
            message: nothingToSpeak(phrase, true).message,
            param: 'input',
          })
          continue
        }
        for await (const piece of fixedSizePieces(this.bytes(spoken.audio))) {
          if (this.abort.signal.aborted) return
          await this.send({ type: 'speech.audio.delta', audio: piece.toString('base64') })
        }
      }
      if (this.inputDone && !this.abort.signal.aborted) {
        await this.send({ type: 'speech.audio.done', usage: this.usage() })
        this.end(CLOSE_NORMAL)
      }
    } catch (err) {
      if (!this.abort.signal.aborted)
        this.fail({ code: 'synthesis_failed', message: (err as Error).message, type: 'server_error' })
    } finally {
      this.speaking = false
      this.touch()
    }
  }

  private async *bytes(pcm: AsyncIterable<Int16Array>) {
    for await (const chunk of pcm) {
      this.samples += chunk.length
      yield pcmBytes(chunk)
    }
  }

  private usage() {
    return {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      audio_seconds: Math.round((this.samples / SAMPLE_RATE) * 1000) / 1000,
      input_characters: this.chars,
    }
  }

  /** Waits for the frame to be written, which paces synthesis to what the client reads. */
  private send(message: TtsServerMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve()
      this.socket.send(JSON.stringify(message), () => resolve())
    })
  }

  /** An error event; the session stays open. */
  private reject(problem: Problem) {
    void this.send(errorEvent(problem))
  }

  /** An error event, then the socket closes. */
  private fail(problem: Problem, code = CLOSE_POLICY) {
    if (this.closed || this.abort.signal.aborted) return
    // Synthesis stops now; the socket closes once the error event is written.
    this.abort.abort()
    void this.send(errorEvent(problem)).then(() => this.end(code, problem.code))
  }

  private end(code: number, reason?: string) {
    this.socket.close(code, reason)
    this.dispose()
  }

  /** The idle clock runs only while the session waits on the client, not while it is still speaking. */
  private touch() {
    clearTimeout(this.idleTimer)
    if (this.closed) return
    this.idleTimer = setTimeout(() => {
      if (this.speaking) return this.touch()
      this.fail({ code: 'idle_timeout', message: 'No input for 5 minutes; the session was closed.' })
    }, this.opts.idleMs)
  }
}

export function errorEvent({ code, message, param, type }: Problem): TtsServerMessage {
  return {
    type: 'error',
    error: { type: type ?? 'invalid_request_error', code, message, param: param ?? null },
  }
}
