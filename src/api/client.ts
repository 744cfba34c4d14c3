import { EventSourceParserStream } from 'eventsource-parser/stream'
import {
  type ApiErrorBody,
  apiErrorBodySchema,
  type ModelId,
  type SpeechRequest,
  speechSseEventSchema,
  type Usage,
} from '../../schema/index.ts'

/** The studio's one typed client. It talks to the studio backend, which holds the key and forwards to the service. */
const API_BASE = '/api'

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
    readonly requestId: string | null,
  ) {
    super(ApiRequestError.describe(status, body))
  }

  get code(): string | null {
    return this.body && 'error' in this.body ? this.body.error.code : null
  }

  private static describe(status: number, body: ApiErrorBody | null): string {
    if (!body) return `The service answered ${status}.`
    return 'error' in body ? body.error.message : body.detail
  }
}

/** A stream that closed before `speech.audio.done`: its audio is partial and must not be continued. */
export class IncompleteStreamError extends Error {
  constructor() {
    super('The audio stream ended before it was complete.')
  }
}

async function errorFrom(response: Response): Promise<ApiRequestError> {
  const requestId = response.headers.get('x-request-id')
  const parsed = apiErrorBodySchema.safeParse(await response.json().catch(() => null))
  return new ApiRequestError(response.status, parsed.success ? parsed.data : null, requestId)
}

function base64ToBytes(b64: string): Uint8Array {
  const binary = atob(b64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

export interface SpeechStreamResult {
  usage: Usage
  requestId: string | null
  /** Milliseconds from sending the request to the response headers. */
  headersMs: number
}

/**
 * Streams speech as SSE with headerless PCM and hands each 24 kHz PCM16 piece to `onAudio` as it arrives.
 * Resolves on `speech.audio.done`; a stream that ends without it rejects with IncompleteStreamError.
 */
export async function streamSpeech(
  request: SpeechRequest,
  opts: { signal?: AbortSignal; onAudio: (pcm: Int16Array) => void },
): Promise<SpeechStreamResult> {
  const sent = performance.now()
  const response = await fetch(`${API_BASE}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, response_format: 'pcm', stream_format: 'sse' }),
    signal: opts.signal,
  })
  if (!response.ok || !response.body) throw await errorFrom(response)
  const headersMs = performance.now() - sent
  const requestId = response.headers.get('x-request-id')
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
  for await (const message of events) {
    const event = speechSseEventSchema.parse(JSON.parse(message.data))
    if (event.type === 'speech.audio.done') return { usage: event.usage, requestId, headersMs }
    const bytes = base64ToBytes(event.audio)
    opts.onAudio(new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1))
  }
  throw new IncompleteStreamError()
}

export interface CatalogVoice {
  id: string
  name: string
  group: string
  language: string
  gender: string
  description: string
}

export async function listVoices(model: ModelId): Promise<CatalogVoice[]> {
  const response = await fetch(`${API_BASE}/v1/voices?model=${encodeURIComponent(model)}`)
  if (!response.ok) throw await errorFrom(response)
  return ((await response.json()) as { data: CatalogVoice[] }).data
}
