import { EventSourceParserStream } from 'eventsource-parser/stream'
import {
  DECODING_FIELDS,
  SECOND_GEN_MODEL,
  type SpeechRequest,
  speechSseEventSchema,
  type Usage,
} from '../../schema/index.ts'
import { apiFetch, errorFrom } from './http.ts'

/**
 * Speech from text (contract 4.1–4.2, 6.1) through the studio backend, which adds its key: streamed as SSE PCM, rendered
 * whole for a final take, or in the voice of a reference clip sent with the request.
 */

/** A stream that closed before `speech.audio.done`: its audio is partial and must not be continued. */
export class IncompleteStreamError extends Error {
  constructor() {
    super('The audio stream ended before it was complete.')
  }
}

/** The 24 kHz PCM16 samples of a Base64 `speech.audio.delta` (SSE and the text socket alike). */
export function pcm16FromBase64(b64: string): Int16Array {
  const binary = atob(b64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1)
}

export interface SpeechStreamResult {
  usage: Usage
  requestId: string | null
}

/** What a speech request does with the audio as it arrives: 24 kHz PCM16 pieces, in order. */
export interface SpeechStreamOptions {
  signal?: AbortSignal
  onAudio: (pcm: Int16Array) => void
}

/**
 * Performance marks of a streamed request's timeline (the request leaves, its headers arrive, its first audio is
 * decoded): with the player's marks (src/state/playback.ts) and the answer's Server-Timing, they break the time to
 * first audio into stages (bench:studio reads them).
 */
export const SPEECH_MARKS = {
  request: 'speech:request',
  response: 'speech:response',
  firstAudio: 'speech:first-audio',
} as const

/**
 * Streams speech as SSE with headerless PCM and hands each 24 kHz PCM16 piece to `onAudio` as it arrives.
 * Resolves on `speech.audio.done`; a stream that ends without it rejects with IncompleteStreamError.
 */
export async function streamSpeech(
  request: SpeechRequest,
  opts: SpeechStreamOptions,
): Promise<SpeechStreamResult> {
  performance.mark(SPEECH_MARKS.request)
  const response = await apiFetch('/v1/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, response_format: 'pcm', stream_format: 'sse' }),
    signal: opts.signal,
  })
  performance.mark(SPEECH_MARKS.response)
  let first = true
  return readSpeechStream(response, (pcm) => {
    if (first) {
      first = false
      performance.mark(SPEECH_MARKS.firstAudio)
    }
    opts.onAudio(pcm)
  })
}

/**
 * One complete utterance with `stream: false` (second-generation only): the service generates the whole text before
 * sending, with whole-utterance loudness, so it is the final render of a line. Returns its 24 kHz PCM16 samples.
 */
export async function renderSpeech(request: SpeechRequest, signal?: AbortSignal): Promise<Int16Array> {
  const response = await apiFetch('/v1/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: false, response_format: 'pcm', stream_format: 'audio' }),
    signal,
  })
  if (!response.ok) throw await errorFrom(response)
  const bytes = await response.arrayBuffer()
  return new Int16Array(bytes, 0, bytes.byteLength >> 1)
}

/**
 * The request fields of a one-request clone (contract 4.2). The model is always the second generation (the only one
 * that clones) and the answer always streams, so `model` and `stream` are not among them.
 */
export type ReferenceSpeechFields = Omit<
  SpeechRequest,
  'model' | 'voice' | 'response_format' | 'stream_format' | 'stream'
>

/** A reference clip for one request: its words, when given, spare the service transcribing it. */
export interface ReferenceClip {
  blob: Blob
  filename: string
  transcript?: string
}

/** The optional text fields of the cloning form (4.2), sent as text as multipart requires. */
const REFERENCE_OPTIONAL_FIELDS = ['speed', 'instructions', 'mode', ...DECODING_FIELDS] as const

/**
 * Streams speech in the voice of `reference`, sent with the request as multipart (4.2) and never saved, as SSE with
 * headerless PCM exactly like `streamSpeech`. The browser sets the multipart content type itself (never JSON).
 */
export async function streamSpeechWithReference(
  fields: ReferenceSpeechFields,
  reference: ReferenceClip,
  opts: SpeechStreamOptions,
): Promise<SpeechStreamResult> {
  const form = new FormData()
  form.set('model', SECOND_GEN_MODEL)
  form.set('input', fields.input)
  form.set('response_format', 'pcm')
  form.set('stream_format', 'sse')
  for (const name of REFERENCE_OPTIONAL_FIELDS) {
    const value = fields[name]
    // null counts as not sent (2.8 rule 1).
    if (value !== undefined && value !== null) form.set(name, String(value))
  }
  const transcript = reference.transcript?.trim()
  if (transcript) form.set('reference_transcript', transcript)
  form.set('reference_audio', reference.blob, reference.filename)
  const response = await apiFetch('/v1/audio/speech', { method: 'POST', body: form, signal: opts.signal })
  return readSpeechStream(response, opts.onAudio)
}

/** Reads a speech answer of SSE PCM deltas (6.1); a stream that ends before `speech.audio.done` is incomplete. */
async function readSpeechStream(
  response: Response,
  onAudio: (pcm: Int16Array) => void,
): Promise<SpeechStreamResult> {
  if (!response.ok || !response.body) throw await errorFrom(response)
  const requestId = response.headers.get('x-request-id')
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
  for await (const message of events) {
    const event = speechSseEventSchema.parse(JSON.parse(message.data))
    if (event.type === 'speech.audio.done') return { usage: event.usage, requestId }
    onAudio(pcm16FromBase64(event.audio))
  }
  throw new IncompleteStreamError()
}
