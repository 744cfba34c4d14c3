import type { FastifyInstance } from 'fastify'
import {
  builtinVoicesFor,
  type CatalogVoice,
  isSecondGen,
  MODELS,
  type ModelId,
  voiceListSchema,
} from '../../../schema/index.ts'
import { voiceCatalogQuerySchema } from '../../../schema/service-routes.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { badRequest } from '../errors.ts'
import { detail, json, keyRefusals } from '../route-docs.ts'
import type { VoiceStore } from './voice-store.ts'

const catalogSchema = {
  operationId: 'listVoices',
  summary: "The model's built-in voices with language metadata, then the caller's saved voices",
  tags: ['voices'],
  querystring: voiceCatalogQuerySchema,
  response: {
    200: json(voiceListSchema, 'The catalog.'),
    400: detail('`model` names none of the models.'),
    ...keyRefusals('tts:generate'),
  },
}

/**
 * GET /v1/voices (4.9): the built-in voices of a model with language metadata, then — for the second-generation
 * model, the only one that speaks them — the caller's active saved voices, newest first. Shape: docs/api.md.
 */
export function voiceCatalogRoutes(
  app: FastifyInstance,
  { keys, store }: { keys: KeyStore; store: VoiceStore },
) {
  app.get<{ Querystring: { model?: string } }>('/v1/voices', { schema: catalogSchema }, async (request) => {
    const principal = await authenticate(keys, request, 'tts:generate')
    const model = (request.query.model ?? 'svc-tts-2-latest') as ModelId
    if (!MODELS.includes(model)) throw badRequest(`model must be one of ${MODELS.join(', ')}.`, 'model')
    const builtin: CatalogVoice[] = builtinVoicesFor(model).map((v) => ({
      id: v.id,
      object: 'voice',
      type: 'builtin',
      name: v.id,
      group: v.group,
      language: v.language,
      gender: v.gender,
      description: v.description,
    }))
    const saved: CatalogVoice[] = isSecondGen(model)
      ? (await store.listVoices(principal.ownerId)).map((v) => ({
          id: v.id,
          object: 'voice',
          type: 'saved',
          name: v.name,
          group: 'saved',
          language: v.language,
          gender: '',
          description: v.consentId ? 'Saved voice bound to a consent' : 'Saved voice (extension form)',
          consent: v.consentId,
          created_at: v.createdAt,
        }))
      : []
    return { object: 'list', model, data: [...builtin, ...saved] }
  })
}
