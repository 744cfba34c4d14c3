import { EventSourceParserStream } from 'eventsource-parser/stream'
import { z } from 'zod'
import {
  type CatalogVoice,
  type ModelId,
  type SpeechRequest,
  speechSseEventSchema,
  type Usage,
  voiceListSchema,
} from '../../schema/index.ts'
import { apiFetch, apiJson, errorFrom } from './http.ts'

/**
 * The studio's one typed client. It talks to the studio backend, which holds the key and forwards to the service.
 * Every request goes through `apiFetch` (http.ts), which adds the CSRF header to state-changing requests.
 */

export { ApiRequestError, onUnauthorized, setCsrfTokenSource } from './http.ts'

/** A stream that closed before `speech.audio.done`: its audio is partial and must not be continued. */
export class IncompleteStreamError extends Error {
  constructor() {
    super('The audio stream ended before it was complete.')
  }
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
}

/**
 * Streams speech as SSE with headerless PCM and hands each 24 kHz PCM16 piece to `onAudio` as it arrives.
 * Resolves on `speech.audio.done`; a stream that ends without it rejects with IncompleteStreamError.
 */
export async function streamSpeech(
  request: SpeechRequest,
  opts: { signal?: AbortSignal; onAudio: (pcm: Int16Array) => void },
): Promise<SpeechStreamResult> {
  const response = await apiFetch('/v1/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, response_format: 'pcm', stream_format: 'sse' }),
    signal: opts.signal,
  })
  if (!response.ok || !response.body) throw await errorFrom(response)
  const requestId = response.headers.get('x-request-id')
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
  for await (const message of events) {
    const event = speechSseEventSchema.parse(JSON.parse(message.data))
    if (event.type === 'speech.audio.done') return { usage: event.usage, requestId }
    const bytes = base64ToBytes(event.audio)
    opts.onAudio(new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1))
  }
  throw new IncompleteStreamError()
}

export async function listVoices(model: ModelId): Promise<CatalogVoice[]> {
  const body = await apiJson(`/v1/voices?model=${encodeURIComponent(model)}`, (b) => voiceListSchema.parse(b))
  return body.data
}

// --- Session (backend contract: /api/auth/*) ---

export const ROLES = ['designer', 'consent_admin', 'reviewer', 'admin'] as const
export type Role = (typeof ROLES)[number]

const sessionSchema = z.object({
  user: z.object({ name: z.string(), role: z.enum(ROLES) }),
  csrfToken: z.string().min(1),
  /** A local admin session the backend opened by itself (loopback, embedded service, no users yet). */
  autoLocal: z.boolean(),
})
export type SessionInfo = z.infer<typeof sessionSchema>

/**
 * The current session, or null when nobody is signed in (401). On loopback with no users yet the backend opens
 * a local admin session on this call.
 */
export async function getSession(): Promise<SessionInfo | null> {
  const response = await apiFetch('/auth/me')
  if (response.status === 401) return null
  if (!response.ok) throw await errorFrom(response)
  return sessionSchema.parse(await response.json())
}

/** Signs in; a wrong name or password rejects with ApiRequestError 401, too many attempts with 429. */
export async function signIn(credentials: { name: string; password: string }): Promise<SessionInfo> {
  return apiJson('/auth/sign-in', (body) => sessionSchema.parse(body), { method: 'POST', json: credentials })
}

export async function signOut(): Promise<void> {
  const response = await apiFetch('/auth/sign-out', { method: 'POST' })
  // 401: the session had already ended, which is what signing out wants.
  if (!response.ok && response.status !== 401) throw await errorFrom(response)
}

// --- Health ---

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  upstream: z.object({ kind: z.enum(['embedded', 'remote']), reachable: z.boolean() }),
  engines: z.object({ synthesis: z.boolean(), recognition: z.boolean(), diarization: z.boolean() }),
})
export type Health = z.infer<typeof healthSchema>
export type EngineName = keyof Health['engines']

export async function getHealth(signal?: AbortSignal): Promise<Health> {
  return apiJson('/health', (body) => healthSchema.parse(body), { signal })
}
