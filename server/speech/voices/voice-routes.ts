import type { FastifyInstance } from 'fastify'
import {
  consentIdPattern,
  type Deletion,
  deletionSchema,
  NAME_MAX_CHARS,
  type SavedVoice,
  savedVoiceIdPattern,
  savedVoiceSchema,
  VOICE_SAMPLE_MAX_BYTES,
} from '../../../schema/index.ts'
import { voiceFormSchema, voiceIdParamsSchema } from '../../../schema/service-routes.ts'
import { readMultipart } from '../../multipart.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { ApiError, badRequest, consentNotFound, voiceNotFound } from '../errors.ts'
import { requestLease } from '../limits/lease.ts'
import { detail, envelope, json, retryAfter } from '../route-docs.ts'
import type { VoiceService } from './voice-service.ts'

const MANAGING = 'Managing saved voices'

export function requiredName(raw: string | undefined): string {
  const name = raw?.trim()
  if (!name) throw badRequest('name is required.', 'name')
  if (name.length > NAME_MAX_CHARS)
    throw badRequest(`name is longer than ${NAME_MAX_CHARS} characters.`, 'name')
  // PostgreSQL's text cannot hold a NUL; refused on either backend, so both give the same answer.
  if (name.includes('\u0000')) throw badRequest('name must not contain a NUL character.', 'name')
  return name
}

/** The key's refusals on voices and consents: `voices:manage`, never an ephemeral key (contract 5.4). */
export const managingRefusals = {
  401: envelope('Missing or invalid key.'),
  403: envelope(
    '`insufficient_permissions` (needs voices:manage) or `durable_api_key_required` (ek_ credential).',
  ),
}

const createSchema = {
  operationId: 'createVoice',
  summary: 'Save a voice from a sample, bound to a consent or in the extension form',
  tags: ['voices'],
  body: { content: { 'multipart/form-data': { schema: voiceFormSchema } } },
  response: {
    200: json(savedVoiceSchema, 'The saved voice.'),
    400: envelope('`invalid_audio` (param audio_sample), or a `detail` error for other fields.'),
    ...managingRefusals,
    404: envelope('`consent_not_found`.'),
    413: detail('audio_sample larger than the limit.'),
    415: detail('Not multipart/form-data.'),
    422: envelope('`speaker_verification_failed` (param audio_sample).'),
    429: {
      ...envelope('`custom_voice_creation_busy`: the cloning queue is full. Retry-After.'),
      headers: retryAfter,
    },
  },
}

const notListedSchema = {
  operationId: 'voicesNotListed',
  summary: 'Not a listing route (use GET /v1/voices)',
  tags: ['voices'],
  // Answered 405 before any key is read.
  security: [],
  response: {
    405: { ...detail('Always; header Allow: POST.'), headers: { allow: { description: 'POST' } } },
  },
}

const deleteSchema = {
  operationId: 'deleteVoice',
  summary: 'Revoke one saved voice and remove its stored audio',
  tags: ['voices'],
  params: voiceIdParamsSchema,
  response: {
    200: json(deletionSchema, 'Deleted.'),
    ...managingRefusals,
    404: envelope('`voice_not_found`.'),
  },
}

/** Saved voices (contract 4.3–4.5): create from a sample (bound to a consent or not), delete; no listing route here. */
export function savedVoiceRoutes(app: FastifyInstance, deps: { keys: KeyStore; voices: VoiceService }) {
  const { keys, voices } = deps

  app.post('/v1/audio/voices', { schema: createSchema }, async (request, reply): Promise<SavedVoice> => {
    // Taken before any await: its signal is aborted even if the client left while the sample was being read.
    const lease = requestLease(reply)
    const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
    const form = await readMultipart(request, {
      fields: ['name', 'consent', 'reference_transcript'],
      files: { audio_sample: VOICE_SAMPLE_MAX_BYTES },
    })
    const name = requiredName(form.fields.name)
    const consent = form.fields.consent?.trim() || null
    if (consent !== null && !consentIdPattern.test(consent)) throw consentNotFound()
    const sample = form.files.audio_sample?.bytes
    if (!sample)
      throw badRequest('audio_sample is required (the reference sample as a file).', 'audio_sample')
    // A client that gives up leaves the cloning queue (or stops its transcription) at once.
    const voice = await voices.createVoice(
      principal.ownerId,
      { name, consentId: consent, transcript: form.fields.reference_transcript },
      sample,
      lease.signal,
    )
    return { id: voice.id, object: 'audio.voice', name: voice.name, created_at: voice.createdAt }
  })

  app.delete<{ Params: { voice_id: string } }>(
    '/v1/audio/voices/:voice_id',
    { schema: deleteSchema },
    async (request): Promise<Deletion> => {
      const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
      const id = request.params.voice_id
      if (!savedVoiceIdPattern.test(id) || !(await voices.store.deleteVoice(principal.ownerId, id)))
        throw voiceNotFound()
      return { id, deleted: true, object: 'audio.voice' }
    },
  )

  app.get('/v1/audio/voices', { schema: notListedSchema }, async () => {
    throw new ApiError(
      405,
      'detail',
      'GET /v1/audio/voices does not list voices; use GET /v1/voices.',
      null,
      null,
      'invalid_request_error',
      {
        allow: 'POST',
      },
    )
  })
}
