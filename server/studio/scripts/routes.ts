import type { FastifyInstance } from 'fastify'
import { scriptDocumentSchema, scriptUpdateSchema } from '../../../schema/index.ts'
import { requireAccess, signedInName } from '../auth/routes.ts'
import { conflict, notFound, refuse, refuseInvalid, scopeErrorHandler } from '../errors.ts'
import type { ScriptStore } from './store.ts'

/**
 * `/api/scripts`: a voice designer's scripts, kept by the backend so they survive a reload and follow the designer to
 * another browser. Each designer sees only their own; another's script does not exist for them (404, never 403).
 *
 * - `GET /api/scripts`: summaries, most recently saved first.
 * - `POST /api/scripts` (a script document): 201 with the saved script at revision 1.
 * - `GET /api/scripts/:id`, `DELETE /api/scripts/:id` (204).
 * - `PUT /api/scripts/:id` (`{script, revision}`): 200 with the saved script at the next revision; 409 with the script
 *   as saved now when the revision is stale, changing nothing.
 */

/** A 40,000-character script with an override on each of its 2,000 lines is about 700 KB of JSON. */
export const MAX_SCRIPT_BODY_BYTES = 1024 * 1024

export function registerScriptRoutes(app: FastifyInstance, store: ScriptStore) {
  app.register(async (scope) => {
    scope.addHook('onRequest', requireAccess('scripts', 'Only voice designers keep scripts.'))
    // Body parsing errors (too large, not JSON) in the envelope, like the backend's own refusals.
    scope.setErrorHandler(
      scopeErrorHandler({
        tooLarge: `A script request holds at most ${MAX_SCRIPT_BODY_BYTES} bytes.`,
        internal: 'The script could not be stored.',
      }),
    )

    scope.get('/api/scripts', async (request, reply) =>
      reply.header('cache-control', 'no-store').send({ data: await store.list(signedInName(request)) }),
    )

    scope.post('/api/scripts', { bodyLimit: MAX_SCRIPT_BODY_BYTES }, async (request, reply) => {
      const parsed = scriptDocumentSchema.safeParse(request.body)
      if (!parsed.success) return refuseInvalid(reply, 'script', parsed.error)
      const saved = await store.create(signedInName(request), parsed.data)
      return reply.code(201).header('cache-control', 'no-store').send(saved)
    })

    scope.get<{ Params: { id: string } }>('/api/scripts/:id', async (request, reply) => {
      const saved = await store.get(signedInName(request), request.params.id)
      if (!saved) return refuse(reply, notFound('No such script.'))
      return reply.header('cache-control', 'no-store').send(saved)
    })

    scope.put<{ Params: { id: string } }>(
      '/api/scripts/:id',
      { bodyLimit: MAX_SCRIPT_BODY_BYTES },
      async (request, reply) => {
        const parsed = scriptUpdateSchema.safeParse(request.body)
        if (!parsed.success) return refuseInvalid(reply, 'script', parsed.error)
        const { script, revision } = parsed.data
        const outcome = await store.save(signedInName(request), request.params.id, script, revision)
        if (!outcome) return refuse(reply, notFound('No such script.'))
        if ('conflict' in outcome)
          return refuse(
            reply,
            conflict('This script was saved elsewhere meanwhile (another browser or tab).', 'revision', {
              script: outcome.conflict,
            }),
          )
        return reply.header('cache-control', 'no-store').send(outcome.saved)
      },
    )

    scope.delete<{ Params: { id: string } }>('/api/scripts/:id', async (request, reply) => {
      if (!(await store.delete(signedInName(request), request.params.id)))
        return refuse(reply, notFound('No such script.'))
      return reply.code(204).send()
    })
  })
}
