import type { FastifyInstance } from 'fastify'
import { builtinVoicesFor, MODELS, type ModelId } from '../../../schema/index.ts'
import { authenticate } from '../auth.ts'
import { badRequest } from '../errors.ts'
import type { KeyStore } from '../store/keys.ts'

/** GET /v1/voices (4.9): the built-in voices of a model with language metadata. Shape: docs/api.md. */
export function voiceCatalogRoutes(app: FastifyInstance, { keys }: { keys: KeyStore }) {
  app.get<{ Querystring: { model?: string } }>('/v1/voices', async (request) => {
    authenticate(keys, request, 'tts:generate')
    const model = (request.query.model ?? 'svc-tts-2-latest') as ModelId
    if (!MODELS.includes(model)) throw badRequest(`model must be one of ${MODELS.join(', ')}.`, 'model')
    return {
      object: 'list',
      model,
      data: builtinVoicesFor(model).map((v) => ({
        id: v.id,
        object: 'voice',
        type: 'builtin',
        name: v.id,
        group: v.group,
        language: v.language,
        gender: v.gender,
        description: v.description,
      })),
    }
  })
}
