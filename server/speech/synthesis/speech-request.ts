import type { z } from 'zod'
import {
  builtinVoicesFor,
  DECODING_FIELDS,
  DEFAULT_MODEL,
  type DecodingField,
  defaultVoiceFor,
  describeRange,
  isSecondGen,
  MODE_PRESETS,
  type Mode,
  type ModelId,
  type ResponseFormat,
  type SpeechRequest,
  speechRequestSchema,
} from '../../../schema/index.ts'
import type { SpeakRequest } from '../../engine/index.ts'
import { type ApiError, badRequest, invalidField } from '../errors.ts'
import type { SpeakingVoice } from '../voices/speaking-voice.ts'

/** A speech request after validation, with every default of contract 2.1 and 2.8 applied. */
export interface ResolvedSpeechRequest {
  model: ModelId
  input: string
  voice:
    | { kind: 'builtin'; id: string }
    | { kind: 'saved'; id: string }
    | { kind: 'inline'; reference: { data: string; format: string }; transcript?: string; consent?: string }
  responseFormat: ResponseFormat
  streamFormat: 'audio' | 'sse'
  stream: boolean
  speed: number
  mode: Mode
  decoding: {
    temperature: number
    top_p: number
    top_k: number
    min_p: number
    max_new_tokens: number | null
  }
}

export function toApiError(issue: z.core.$ZodIssue): ApiError {
  const field = issue.path[0]
  if (issue.code === 'unrecognized_keys') {
    return badRequest(`Unknown field(s): ${issue.keys.join(', ')}.`, issue.keys[0] ?? null)
  }
  if (typeof field !== 'string') return badRequest(issue.message)
  if ((DECODING_FIELDS as string[]).includes(field)) {
    // Decoding values use the envelope with the allowed range (contract 7 rule 3), whatever was wrong with them.
    return invalidField(field, describeRange(field as DecodingField))
  }
  if (field === 'voice' && issue.code === 'invalid_union' && issue.input === null) {
    return badRequest('voice must be omitted to use the default voice; null is not allowed.', 'voice')
  }
  if (field === 'model') return invalidField('model', `model must be one of the service's models.`)
  return badRequest(`${field}: ${issue.message}`, field)
}

export function resolveSpeechRequest(body: unknown): ResolvedSpeechRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.')
  }
  const parsed = speechRequestSchema.safeParse(body)
  if (!parsed.success) throw toApiError(parsed.error.issues[0] as z.core.$ZodIssue)
  const req: SpeechRequest = parsed.data
  const model = req.model ?? DEFAULT_MODEL
  const streamFormat = req.stream_format ?? 'audio'
  const stream = req.stream ?? true
  if (!stream && streamFormat === 'sse' && isSecondGen(model)) {
    throw badRequest('stream: false cannot be combined with stream_format "sse".', 'stream')
  }
  const mode = req.mode ?? 'expressive'
  return {
    model,
    input: req.input,
    voice: resolveVoice(model, req.voice),
    responseFormat: req.response_format ?? 'mp3',
    streamFormat,
    // The 0.8 models always stream; stream and the decoding fields are accepted and ignored there (2.1 rule 4).
    stream: isSecondGen(model) ? stream : true,
    speed: req.speed ?? 1,
    mode,
    decoding: resolveDecoding(mode, req),
  }
}

type DecodingFields = Partial<Record<DecodingField, number | null | undefined>>

/** Every omitted (or null) decoding field comes from the mode's preset (2.8 rule 1). */
export function resolveDecoding(mode: Mode, sent: DecodingFields): ResolvedSpeechRequest['decoding'] {
  const preset = MODE_PRESETS[mode]
  return {
    temperature: sent.temperature ?? preset.temperature,
    top_p: sent.top_p ?? preset.top_p,
    top_k: sent.top_k ?? preset.top_k,
    min_p: sent.min_p ?? preset.min_p,
    max_new_tokens: sent.max_new_tokens ?? null,
  }
}

export function resolveVoice(model: ModelId, voice: SpeechRequest['voice']): ResolvedSpeechRequest['voice'] {
  if (voice === undefined) return { kind: 'builtin', id: defaultVoiceFor(model) }
  if (typeof voice === 'string') {
    if (!builtinVoicesFor(model).some((v) => v.id === voice)) {
      throw invalidField(
        'voice',
        `voice "${voice}" is not a built-in voice of ${model} (ids are case-sensitive).`,
      )
    }
    return { kind: 'builtin', id: voice }
  }
  if (!isSecondGen(model)) {
    throw invalidField('voice', 'Custom voices are available only with svc-tts-2-latest.')
  }
  if ('id' in voice) return { kind: 'saved', id: voice.id }
  return {
    kind: 'inline',
    reference: voice.reference_audio,
    transcript: voice.reference_transcript,
    consent: voice.consent,
  }
}

/** What the engine is asked to speak for a request, in a voice resolved for it. */
export function speakRequestFor(
  req: ResolvedSpeechRequest,
  voice: SpeakingVoice,
  signal?: AbortSignal,
): SpeakRequest {
  const secondGen = isSecondGen(req.model)
  return {
    text: req.input,
    voice: voice.params,
    language: voice.language,
    speed: req.speed,
    markup: secondGen,
    model: req.model,
    // Decoding fields are accepted and ignored by the 0.8 models (2.1 rule 4).
    maxNewTokens: secondGen ? req.decoding.max_new_tokens : null,
    decoding: secondGen ? req.decoding : undefined,
    signal,
  }
}
