import type { FastifyInstance } from 'fastify'
import {
  MAX_PRONUNCIATIONS,
  PRONUNCIATION_ID_PATTERN,
  pronunciationImportSchema,
  pronunciationInputSchema,
} from '../../../schema/index.ts'
import { requireAccess, signedInName } from '../auth/routes.ts'
import { conflict, notFound, refuse, refuseInvalid, scopeErrorHandler } from '../errors.ts'
import type { PronunciationStore } from './store.ts'

/**
 * `/api/pronunciations`: the studio's lexicon, shared by its designers (who may read and edit it: access.ts).
 *
 * - `GET /api/pronunciations`: every entry, alphabetically.
 * - `POST /api/pronunciations` (an entry): 201 with it; 409 with the entry kept when the word and case rule has one.
 * - `POST /api/pronunciations/import` (`{entries}`, from a PLS file the browser read): 200 with the lexicon and how
 *   many were added and replaced; all or nothing.
 * - `DELETE /api/pronunciations/:id` (204).
 */

/** 2,000 entries of the longest fields, JSON-escaped, are about 1.4 MB. */
export const MAX_PRONUNCIATION_BODY_BYTES = 2 * 1024 * 1024

const overLimit = (after: number) =>
  conflict(
    `A studio keeps at most ${MAX_PRONUNCIATIONS} pronunciations; this would make ${after}. Delete some first.`,
    'entries',
  )

export function registerPronunciationRoutes(app: FastifyInstance, store: PronunciationStore) {
  app.register(async (scope) => {
    scope.addHook('onRequest', requireAccess('pronunciations', 'Only voice designers keep pronunciations.'))
    scope.setErrorHandler(
      scopeErrorHandler({
        tooLarge: `A pronunciations request holds at most ${MAX_PRONUNCIATION_BODY_BYTES} bytes.`,
        internal: 'The pronunciation could not be stored.',
      }),
    )

    scope.get('/api/pronunciations', async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ data: await store.list() }),
    )

    scope.post('/api/pronunciations', { bodyLimit: MAX_PRONUNCIATION_BODY_BYTES }, async (request, reply) => {
      const parsed = pronunciationInputSchema.safeParse(request.body)
      if (!parsed.success) return refuseInvalid(reply, 'pronunciation', parsed.error)
      if ((await store.count()) >= MAX_PRONUNCIATIONS) return refuse(reply, overLimit(MAX_PRONUNCIATIONS + 1))
      const outcome = await store.add(signedInName(request), parsed.data)
      if ('exists' in outcome)
        return refuse(
          reply,
          conflict(`“${outcome.exists.text}” already has a pronunciation.`, 'text', {
            pronunciation: outcome.exists,
          }),
        )
      return reply.code(201).header('cache-control', 'no-store').send(outcome.added)
    })

    scope.post(
      '/api/pronunciations/import',
      { bodyLimit: MAX_PRONUNCIATION_BODY_BYTES },
      async (request, reply) => {
        const parsed = pronunciationImportSchema.safeParse(request.body)
        if (!parsed.success) return refuseInvalid(reply, 'pronunciation', parsed.error)
        const outcome = await store.import(signedInName(request), parsed.data.entries, MAX_PRONUNCIATIONS)
        if ('overLimit' in outcome) return refuse(reply, overLimit(outcome.overLimit))
        return reply.header('cache-control', 'no-store').send({ data: await store.list(), ...outcome })
      },
    )

    scope.delete<{ Params: { id: string } }>('/api/pronunciations/:id', async (request, reply) => {
      const { id } = request.params
      if (!PRONUNCIATION_ID_PATTERN.test(id) || !(await store.delete(id)))
        return refuse(reply, notFound('No such pronunciation.'))
      return reply.code(204).send()
    })
  })
}
