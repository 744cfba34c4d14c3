import type { FastifyInstance } from 'fastify'
import {
  CONSENT_LIST_MAX,
  CONSENT_RECORDING_MAX_BYTES,
  type ConsentList,
  canonicalLanguageTag,
  consentIdPattern,
  consentListQuerySchema,
  consentListSchema,
  type Deletion,
  deletionSchema,
  type VoiceConsent,
  voiceConsentSchema,
} from '../../../schema/index.ts'
import { consentFormSchema, consentIdParamsSchema } from '../../../schema/service-routes.ts'
import { readMultipart } from '../../multipart.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { badRequest, consentNotFound } from '../errors.ts'
import { detail, envelope, json } from '../route-docs.ts'
import { managingRefusals, requiredName } from './voice-routes.ts'
import type { VoiceService } from './voice-service.ts'
import type { ConsentRecord } from './voice-store.ts'

const MANAGING = 'Managing voice consents'
const DEFAULT_PAGE = 20

export const consentObject = (c: ConsentRecord): VoiceConsent => ({
  id: c.id,
  object: 'audio.voice_consent',
  name: c.name,
  language: c.language,
  created_at: c.createdAt,
})

const createSchema = {
  operationId: 'createVoiceConsent',
  summary: "Record a voice owner's consent",
  tags: ['consents'],
  body: { content: { 'multipart/form-data': { schema: consentFormSchema } } },
  response: {
    200: json(voiceConsentSchema, 'The consent.'),
    400: envelope(
      '`invalid_audio`, `recording_duration_out_of_range`, `multiple_speakers`, `music_detected`, `consent_phrase_mismatch`; or a `detail` error for other fields.',
    ),
    ...managingRefusals,
    413: detail('recording larger than the limit.'),
    415: detail('Not multipart/form-data.'),
    503: envelope('`recognition_unavailable`: no recognizer installed and no consent_transcript sent.'),
  },
}

const listSchema = {
  operationId: 'listVoiceConsents',
  summary: "The caller's consents, newest first",
  tags: ['consents'],
  querystring: consentListQuerySchema,
  response: {
    200: json(consentListSchema, 'One page.'),
    400: detail('Invalid limit or after.'),
    ...managingRefusals,
    404: envelope("`consent_not_found`: the cursor is not one of the caller's consents."),
  },
}

const deleteSchema = {
  operationId: 'deleteVoiceConsent',
  summary: 'Delete a consent and revoke every voice bound to it',
  tags: ['consents'],
  params: consentIdParamsSchema,
  response: {
    200: json(deletionSchema, 'Deleted.'),
    ...managingRefusals,
    404: envelope('`consent_not_found`.'),
  },
}

/** Consents (contract 4.6–4.8): create from a recording of the consent phrase, list newest first, delete with cascade. */
export function consentRoutes(app: FastifyInstance, deps: { keys: KeyStore; voices: VoiceService }) {
  const { keys, voices } = deps
  const store = voices.store

  app.post('/v1/audio/voice_consents', { schema: createSchema }, async (request) => {
    const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
    const form = await readMultipart(request, {
      fields: ['name', 'language', 'consent_transcript'],
      files: { recording: CONSENT_RECORDING_MAX_BYTES },
    })
    const name = requiredName(form.fields.name)
    const tag = form.fields.language
    if (tag === undefined)
      throw badRequest('language is required (a language tag such as en-US).', 'language')
    const language = canonicalLanguageTag(tag.trim())
    if (!language)
      throw badRequest(`language "${tag}" is not a language tag of the form xx or xx-XX.`, 'language')
    const recording = form.files.recording?.bytes
    if (!recording) throw badRequest('recording is required (the consent clip as a file).', 'recording')
    const consent = await voices.createConsent(
      principal.ownerId,
      { name, language, transcript: form.fields.consent_transcript },
      recording,
    )
    return consentObject(consent)
  })

  app.get('/v1/audio/voice_consents', { schema: listSchema }, async (request): Promise<ConsentList> => {
    const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
    const parsed = consentListQuerySchema.safeParse(request.query)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = typeof issue?.path[0] === 'string' ? issue.path[0] : null
      throw badRequest(
        field === 'limit'
          ? `limit must be an integer from 1 to ${CONSENT_LIST_MAX}.`
          : field === 'after'
            ? 'after must be a consent id (cons_…).'
            : `Unknown query parameter(s). Accepted: limit, after.`,
        field,
      )
    }
    const { limit = DEFAULT_PAGE, after } = parsed.data
    const page = await store.listConsents(principal.ownerId, limit, after)
    if (!page) throw consentNotFound()
    const data = page.data.map(consentObject)
    return {
      object: 'list',
      data,
      has_more: page.hasMore,
      first_id: data[0]?.id ?? null,
      last_id: data.at(-1)?.id ?? null,
    }
  })

  app.delete<{ Params: { consent_id: string } }>(
    '/v1/audio/voice_consents/:consent_id',
    { schema: deleteSchema },
    async (request): Promise<Deletion> => {
      const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
      const id = request.params.consent_id
      if (!consentIdPattern.test(id) || !(await store.deleteConsent(principal.ownerId, id)))
        throw consentNotFound()
      return { id, deleted: true, object: 'audio.voice_consent' }
    },
  )
}
