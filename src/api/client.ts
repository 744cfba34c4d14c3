import { queryOptions } from '@tanstack/react-query'
import { createParser } from 'eventsource-parser'
import { EventSourceParserStream } from 'eventsource-parser/stream'
import { z } from 'zod'
import {
  type CatalogVoice,
  type ConsentList,
  consentListSchema,
  DECODING_FIELDS,
  type Deletion,
  deletionSchema,
  type ModelId,
  type SavedVoice,
  SECOND_GEN_MODEL,
  type SessionInfo,
  type SpeechRequest,
  savedVoiceSchema,
  sessionSchema,
  signInSetupSchema,
  speechAudioDeltaSchema,
  speechAudioDoneSchema,
  speechSseEventSchema,
  type Usage,
  type VoiceConsent,
  type VoiceSettings,
  voiceConsentSchema,
  voiceListSchema,
} from '../../schema/index.ts'
import {
  type SavedScript,
  type ScriptDocument,
  type ScriptSummary,
  savedScriptSchema,
  scriptListSchema,
} from '../../schema/scripts.ts'
import {
  type LabelEdits,
  type Peaks,
  type SavedLabels,
  type SavedTranscript,
  type StoredResult,
  savedLabelsSchema,
  savedTranscriptSchema,
  storedResultSchema,
  type TranscriptSummary,
  transcriptListSchema,
} from '../../schema/transcripts.ts'
import { apiFetch, apiJson, apiUpload, apiUploadStream, errorFrom, type UploadProgress } from './http.ts'

/**
 * The studio's one typed client. It talks to the studio backend, which holds the key and forwards to the service.
 * Every request goes through `apiFetch` (http.ts), which adds the CSRF header to state-changing requests.
 */

export { ApiRequestError, onUnauthorized, setCsrfTokenSource, type UploadProgress } from './http.ts'
export type { ConsentList, Deletion, SavedVoice, VoiceConsent }

/** A stream that closed before `speech.audio.done`: its audio is partial and must not be continued. */
export class IncompleteStreamError extends Error {
  constructor() {
    super('The audio stream ended before it was complete.')
  }
}

/** The 24 kHz PCM16 samples of a Base64 `speech.audio.delta` (SSE and the text socket alike). */
function pcm16FromBase64(b64: string): Int16Array {
  const binary = atob(b64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1)
}

/**
 * A socket to one of the backend's bridges (`/api` + `path`). JSON text messages go to `onMessage`; `opened` on
 * close tells a session that ended from one that never started (refused or unreachable). Returns the socket and a
 * sender that drops events once it is no longer open.
 */
function openBridgeSocket(
  path: string,
  query: URLSearchParams,
  handlers: {
    onOpen(): void
    onMessage(data: unknown): void
    onClose(info: { code: number; reason: string; opened: boolean }): void
  },
) {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const socket = new WebSocket(`${scheme}://${window.location.host}/api${path}?${query}`)
  let opened = false
  socket.onopen = () => {
    opened = true
    handlers.onOpen()
  }
  socket.onmessage = (message) => {
    if (typeof message.data === 'string') handlers.onMessage(JSON.parse(message.data))
  }
  socket.onclose = (event) => handlers.onClose({ code: event.code, reason: event.reason, opened })
  const send = (event: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(event))
  }
  return { socket, send }
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
 * Streams speech as SSE with headerless PCM and hands each 24 kHz PCM16 piece to `onAudio` as it arrives.
 * Resolves on `speech.audio.done`; a stream that ends without it rejects with IncompleteStreamError.
 */
export async function streamSpeech(
  request: SpeechRequest,
  opts: SpeechStreamOptions,
): Promise<SpeechStreamResult> {
  const response = await apiFetch('/v1/audio/speech', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, response_format: 'pcm', stream_format: 'sse' }),
    signal: opts.signal,
  })
  return readSpeechStream(response, opts.onAudio)
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
 * The request fields of a one-request clone (spec 4.2). The model is always the second generation (the only one
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

export async function listVoices(model: ModelId, signal?: AbortSignal): Promise<CatalogVoice[]> {
  const body = await apiJson(
    `/v1/voices?model=${encodeURIComponent(model)}`,
    (b) => voiceListSchema.parse(b),
    {
      signal,
    },
  )
  return body.data
}

// --- Scripts (backend contract: /api/scripts) ---

export type { SavedScript, ScriptDocument, ScriptSummary }

/** Another browser or tab saved the script since this revision (409); `script` is the one now saved. */
export class ScriptConflictError extends Error {
  constructor(
    message: string,
    readonly script: SavedScript,
  ) {
    super(message)
  }
}

/** The signed-in designer's scripts, most recently saved first. */
export async function listScripts(signal?: AbortSignal): Promise<ScriptSummary[]> {
  return apiJson('/scripts', (b) => scriptListSchema.parse(b).data, { signal })
}

export async function getScript(id: string, signal?: AbortSignal): Promise<SavedScript> {
  return apiJson(`/scripts/${encodeURIComponent(id)}`, (b) => savedScriptSchema.parse(b), { signal })
}

export async function createScript(script: ScriptDocument): Promise<SavedScript> {
  return apiJson('/scripts', (b) => savedScriptSchema.parse(b), { method: 'POST', json: script })
}

/** Saves the script edited from `revision`; rejects with ScriptConflictError when it was saved elsewhere meanwhile. */
export async function saveScript(id: string, script: ScriptDocument, revision: number): Promise<SavedScript> {
  return putRevision(
    `/scripts/${encodeURIComponent(id)}`,
    { script, revision },
    (b) => savedScriptSchema.parse(b),
    (b) => {
      const body = z.object({ detail: z.string(), script: savedScriptSchema }).parse(b)
      return new ScriptConflictError(body.detail, body.script)
    },
  )
}

/** A PUT made on top of a revision; a 409 carries what is saved now, which `conflict` turns into the error thrown. */
async function putRevision<T>(
  path: string,
  body: unknown,
  parse: (body: unknown) => T,
  conflict: (body: unknown) => Error,
): Promise<T> {
  const response = await apiFetch(path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (response.status === 409) throw conflict(await response.json())
  if (!response.ok) throw await errorFrom(response)
  return parse(await response.json())
}

export async function deleteScript(id: string): Promise<void> {
  const response = await apiFetch(`/scripts/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!response.ok) throw await errorFrom(response)
}

// --- Session (backend contract: /api/auth/*) ---

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

/** Whether the studio has any user yet: without one, the sign-in page says how the first is made. */
export const signInSetupQuery = queryOptions({
  queryKey: ['auth', 'setup'] as const,
  queryFn: ({ signal }) => apiJson('/auth/setup', (b) => signInSetupSchema.parse(b), { signal }),
})

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

// --- Consents and saved voices (spec 2.3, 2.5, 4.3–4.9) ---

/** The model whose catalog lists the saved voices (custom voices exist only on the second generation). */
export const SAVED_VOICE_MODEL: ModelId = 'svc-tts-2-latest'

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void
  signal?: AbortSignal
}

/** An audio file to upload, with the file name the service sees (its extension hints at the format). */
export interface AudioUpload {
  blob: Blob
  filename: string
}

/** One page of the caller's consents, newest first (`after`: the last id of the previous page). */
export async function listConsents(
  opts: { limit?: number; after?: string; signal?: AbortSignal } = {},
): Promise<ConsentList> {
  const query = new URLSearchParams()
  if (opts.limit !== undefined) query.set('limit', String(opts.limit))
  if (opts.after) query.set('after', opts.after)
  return apiJson(`/v1/audio/voice_consents?${query}`, (b) => consentListSchema.parse(b), {
    signal: opts.signal,
  })
}

/** Records a consent: the phrase spoken by the voice's owner, checked by the service (2–30 s, one speaker). */
export async function createConsent(
  input: { name: string; language: string; recording: AudioUpload; transcript?: string },
  opts: UploadOptions = {},
): Promise<VoiceConsent> {
  const form = new FormData()
  form.set('name', input.name)
  form.set('language', input.language)
  if (input.transcript) form.set('consent_transcript', input.transcript)
  form.set('recording', input.recording.blob, input.recording.filename)
  return apiUpload('/v1/audio/voice_consents', form, (b) => voiceConsentSchema.parse(b), opts)
}

/** Deletes a consent; the service revokes every voice bound to it. */
export async function deleteConsent(id: string): Promise<Deletion> {
  return apiJson(`/v1/audio/voice_consents/${encodeURIComponent(id)}`, (b) => deletionSchema.parse(b), {
    method: 'DELETE',
  })
}

/** Saves a voice from a sample, bound to `consent` or (without one) in the extension form. */
export async function createVoice(
  input: { name: string; sample: AudioUpload; consent?: string | null; transcript?: string },
  opts: UploadOptions = {},
): Promise<SavedVoice> {
  const form = new FormData()
  form.set('name', input.name)
  if (input.consent) form.set('consent', input.consent)
  if (input.transcript) form.set('reference_transcript', input.transcript)
  form.set('audio_sample', input.sample.blob, input.sample.filename)
  return apiUpload('/v1/audio/voices', form, (b) => savedVoiceSchema.parse(b), opts)
}

export async function deleteVoice(id: string): Promise<Deletion> {
  return apiJson(`/v1/audio/voices/${encodeURIComponent(id)}`, (b) => deletionSchema.parse(b), {
    method: 'DELETE',
  })
}

const savedCatalogEntrySchema = z.object({
  id: z.string(),
  type: z.literal('saved'),
  name: z.string(),
  language: z.string().catch('en'),
  description: z.string().catch(''),
  consent: z
    .string()
    .nullish()
    .transform((c) => c ?? null),
  created_at: z
    .number()
    .nullish()
    .transform((t) => t ?? null),
})
export type SavedCatalogVoice = z.infer<typeof savedCatalogEntrySchema>

/** The caller's active saved voices from the voice catalog (4.9), each with the consent it is bound to. */
export async function listSavedVoices(signal?: AbortSignal): Promise<SavedCatalogVoice[]> {
  const body = await apiJson(
    `/v1/voices?model=${encodeURIComponent(SAVED_VOICE_MODEL)}`,
    (b) => z.object({ data: z.array(z.looseObject({ type: z.string() })) }).parse(b),
    { signal },
  )
  return body.data.filter((v) => v.type === 'saved').map((v) => savedCatalogEntrySchema.parse(v))
}

// --- Audit trail (backend contract: /api/audit) ---

const auditEventSchema = z.object({
  id: z.number().int(),
  at: z.number().int(),
  user: z.string(),
  role: z.string(),
  kind: z.enum(['consent', 'voice']),
  action: z.enum(['created', 'deleted', 'revoked']),
  upstream_id: z.string(),
  name: z.string().nullable(),
  consent_id: z.string().nullable(),
})
export type AuditEvent = z.infer<typeof auditEventSchema>

const auditPageSchema = z.object({
  data: z.array(auditEventSchema),
  has_more: z.boolean(),
  next_before: z.number().int().nullable(),
})
export type AuditPage = z.infer<typeof auditPageSchema>

/** The studio's audit trail of consents and voices, newest first (`before`: the previous page's next_before). */
export async function listAudit(
  opts: { limit?: number; before?: number; signal?: AbortSignal } = {},
): Promise<AuditPage> {
  const query = new URLSearchParams()
  if (opts.limit !== undefined) query.set('limit', String(opts.limit))
  if (opts.before !== undefined) query.set('before', String(opts.before))
  return apiJson(`/audit?${query}`, (b) => auditPageSchema.parse(b), { signal: opts.signal })
}

/** The creation event of every consent and voice still live: who made it and when. */
export async function listAuditOrigins(signal?: AbortSignal): Promise<AuditEvent[]> {
  return apiJson('/audit/origins', (b) => z.object({ data: z.array(auditEventSchema) }).parse(b).data, {
    signal,
  })
}

// --- Transcripts (backend contract: /api/transcripts; the service's events: spec 4.12, 6.4) ---

export type { LabelEdits, Peaks, SavedLabels, SavedTranscript, StoredResult, TranscriptSummary }

/** The transcription stream ended before `transcript.text.done`: nothing was saved. */
export class TranscriptionIncompleteError extends Error {
  constructor(message = 'The transcription stopped before it was complete; nothing was saved. Try again.') {
    super(message)
  }
}

/** Someone saved other label edits since these were loaded (409); `labels` are the ones now saved. */
export class LabelsConflictError extends Error {
  constructor(
    message: string,
    readonly labels: SavedLabels,
  ) {
    super(message)
  }
}

/**
 * Sends a recording to the backend, which stores it, has the service transcribe it (streamed verbose_json) and
 * saves the result. `fields` are the service's form fields (diarization options). Text deltas go to `onDelta` as the
 * service produces them; resolves with the saved transcript's id and the service's result.
 */
export async function transcribeAndSave(
  upload: { file: Blob; fileName: string; fields: Record<string, string> },
  opts: {
    onProgress?: (progress: UploadProgress) => void
    onDelta?: (delta: string) => void
    signal?: AbortSignal
  } = {},
): Promise<{ id: string; result: StoredResult }> {
  const form = new FormData()
  // Fields before the file, as the service reads them.
  for (const [name, value] of Object.entries(upload.fields)) form.set(name, value)
  form.set('file', upload.file, upload.fileName)
  let result: StoredResult | null = null
  let failure: Error | null = null
  const parser = createParser({
    onEvent(message) {
      const event = transcriptionStreamEventSchema.parse(JSON.parse(message.data))
      if (event.type === 'transcript.text.delta') opts.onDelta?.(String(event.delta ?? ''))
      else if (event.type === 'transcript.text.done') {
        const { type: _type, ...rest } = event
        result = storedResultSchema.parse(rest)
      } else if (event.type === 'error') {
        const error = (event.error ?? {}) as { message?: unknown }
        failure = new TranscriptionIncompleteError(
          typeof error.message === 'string' ? error.message : 'The service stopped with an error.',
        )
      }
    },
  })
  const headers = await apiUploadStream('/transcripts', form, {
    onProgress: opts.onProgress,
    onText: (chunk) => parser.feed(chunk),
    signal: opts.signal,
  })
  const id = headers.get('x-transcript-id')
  if (failure) throw failure
  if (!result || !id) throw new TranscriptionIncompleteError()
  return { id, result }
}

const transcriptionStreamEventSchema = z.looseObject({ type: z.string() })

export async function listTranscripts(signal?: AbortSignal): Promise<TranscriptSummary[]> {
  return apiJson('/transcripts', (b) => transcriptListSchema.parse(b).data, { signal })
}

export async function getTranscript(id: string, signal?: AbortSignal): Promise<SavedTranscript> {
  return apiJson(`/transcripts/${encodeURIComponent(id)}`, (b) => savedTranscriptSchema.parse(b), { signal })
}

/** Saves the edits made on top of `revision`; rejects with LabelsConflictError when someone saved in between. */
export async function saveTranscriptLabels(
  id: string,
  edits: LabelEdits,
  revision: number,
): Promise<SavedLabels> {
  return putRevision(
    `/transcripts/${encodeURIComponent(id)}/labels`,
    { edits, revision },
    (b) => savedLabelsSchema.parse(b),
    (b) => {
      const body = z.object({ detail: z.string(), labels: savedLabelsSchema }).parse(b)
      return new LabelsConflictError(body.detail, body.labels)
    },
  )
}

export async function saveTranscriptPeaks(id: string, peaks: Peaks): Promise<void> {
  const response = await apiFetch(`/transcripts/${encodeURIComponent(id)}/peaks`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(peaks),
  })
  if (!response.ok) throw await errorFrom(response)
}

export async function deleteTranscript(id: string): Promise<void> {
  const response = await apiFetch(`/transcripts/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!response.ok) throw await errorFrom(response)
}

/** Base64 of PCM16 samples' bytes (little-endian, as typed arrays are on every browser platform). */
export function pcm16ToBase64(pcm: Int16Array): string {
  const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** A live transcription session through the backend's socket bridge (`/api/v1/realtime`). */
export interface LiveConnection {
  /** 24 kHz mono PCM16 from the microphone. */
  sendAudio(pcm: Int16Array): void
  /** Ends the current turn now (the service also ends turns by itself). */
  commit(): void
  close(): void
}

export interface LiveHandlers {
  onOpen(): void
  onEvent(event: { type: string } & Record<string, unknown>): void
  /** `opened` tells a session that ended from one that never started (refused or unreachable). */
  onClose(info: { code: number; reason: string; opened: boolean }): void
}

/**
 * Opens a live session. The backend mints the service's ephemeral credential with these diarization settings and
 * relays the socket; the browser never holds a key.
 */
export function connectLiveTranscription(
  settings: { diarization: boolean; maxSpeakers?: number },
  handlers: LiveHandlers,
): LiveConnection {
  const query = new URLSearchParams({ diarization: String(settings.diarization) })
  if (settings.maxSpeakers !== undefined) query.set('max_speakers', String(settings.maxSpeakers))
  const { socket, send } = openBridgeSocket('/v1/realtime', query, {
    onOpen: () => handlers.onOpen(),
    onMessage: (data) => {
      const parsed = transcriptionStreamEventSchema.safeParse(data)
      if (parsed.success) handlers.onEvent(parsed.data)
    },
    onClose: (info) => handlers.onClose(info),
  })
  return {
    sendAudio: (pcm) => send({ type: 'input_audio_buffer.append', audio: pcm16ToBase64(pcm) }),
    commit: () => send({ type: 'input_audio_buffer.commit' }),
    close: () => socket.close(1000),
  }
}

// --- Live speech (the text-input socket through the backend's bridge) ---

/** An `error` event of the session (docs/realtime-tts.md), e.g. `rate_limit_exceeded` at capacity (6.3). */
export interface LiveSpeechProblem {
  code: string
  message: string
}

export interface LiveSpeechHandlers {
  onOpen(): void
  /** 24 kHz mono PCM16, in order. */
  onAudio(pcm: Int16Array): void
  /** `speech.audio.done`: the output is complete. */
  onDone(usage: Usage): void
  onError(problem: LiveSpeechProblem): void
  /** `opened` tells a session that ended from one that never started (refused or unreachable). */
  onClose(info: { code: number; reason: string; opened: boolean }): void
}

export interface LiveSpeechConnection {
  append(text: string): void
  /** Speaks what the service holds now, even without a phrase ending. */
  commit(): void
  /** No more text: the service speaks the rest, sends `speech.audio.done` and closes. */
  done(): void
  close(): void
}

/** A live session that ended before `speech.audio.done`; `code` is the service's error code if it sent one. */
export class LiveSpeechError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const liveSpeechEventSchema = z.discriminatedUnion('type', [
  speechAudioDeltaSchema,
  speechAudioDoneSchema,
  z.object({ type: z.literal('error'), error: z.object({ code: z.string(), message: z.string() }) }),
])

/**
 * Opens the text-input speech socket (spec 4.10) through the backend, which adds its key: the browser never
 * holds one. Only the settings that are set travel, so omitted decoding controls come from the mode's preset
 * (2.8 rule 1).
 */
export function connectLiveSpeech(
  settings: VoiceSettings,
  handlers: LiveSpeechHandlers,
): LiveSpeechConnection {
  // Saved voices travel as their `voice_<id>`, as the settings hold them.
  const query = new URLSearchParams({ model: settings.model, voice: settings.voice, response_format: 'pcm' })
  for (const name of ['speed', 'mode', ...DECODING_FIELDS] as const) {
    const value = settings[name]
    if (value !== undefined) query.set(name, String(value))
  }
  const { socket, send } = openBridgeSocket('/v1/tts/realtime', query, {
    onOpen: () => handlers.onOpen(),
    onMessage: (data) => {
      const event = liveSpeechEventSchema.safeParse(data)
      if (!event.success) return
      if (event.data.type === 'speech.audio.delta') handlers.onAudio(pcm16FromBase64(event.data.audio))
      else if (event.data.type === 'speech.audio.done') handlers.onDone(event.data.usage)
      else handlers.onError(event.data.error)
    },
    onClose: (info) => handlers.onClose(info),
  })
  return {
    append: (text) => send({ type: 'input_text.append', text }),
    commit: () => send({ type: 'input_text.commit' }),
    done: () => send({ type: 'input_text.done' }),
    close: () => socket.close(1000),
  }
}
