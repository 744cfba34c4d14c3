import type { Readable } from 'node:stream'
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawServerBase,
  RouteGenericInterface,
} from 'fastify'
import { z } from 'zod'
import {
  AUDIT_KINDS,
  type AuditKind,
  type AuditOrigins,
  type AuditPage,
  consentIdPattern,
  type TakeErasures,
} from '../../../schema/index.ts'
import type { StudioUser } from '../auth/routes.ts'
import { forbiddenForRole, invalidBody, notFound, notSignedIn, refuse } from '../errors.ts'
import { consentRecord, toJson } from './answers.ts'
import type { AuditEvent, AuditStore } from './store.ts'

/**
 * The audit trail of consents and voices (issue #8.6). The proxy hands the service's answer to the audited routes
 * here; only a 2xx answer is recorded, with the studio user who asked. Consent and voice administrators read the
 * trail at GET /api/audit. Ids go into the database and the JSON answers, never into log lines.
 */

interface AuditedRoute {
  method: string
  path: RegExp
  kind: AuditKind
  action: 'created' | 'deleted'
}

const AUDITED: readonly AuditedRoute[] = [
  { method: 'POST', path: /^\/v1\/audio\/voice_consents$/, kind: 'consent', action: 'created' },
  { method: 'DELETE', path: /^\/v1\/audio\/voice_consents\/[\w-]+$/, kind: 'consent', action: 'deleted' },
  { method: 'POST', path: /^\/v1\/audio\/voices$/, kind: 'voice', action: 'created' },
  { method: 'DELETE', path: /^\/v1\/audio\/voices\/[\w-]+$/, kind: 'voice', action: 'deleted' },
]

/** The audited route for an upstream request (`path` without /api and query), or undefined. */
export function auditedRoute(method: string, path: string): AuditedRoute | undefined {
  return AUDITED.find((r) => r.method === method && r.path.test(path))
}

const createdSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  consent: z.string().nullish(),
})
const deletedSchema = z.looseObject({ id: z.string().min(1), deleted: z.literal(true) })

/** Finds which consent a saved voice is bound to (null: none, undefined: could not tell). */
export type ConsentOfVoice = (voiceId: string) => Promise<string | null | undefined>

export interface AuditDeps {
  store: AuditStore
  consentOfVoice: ConsentOfVoice
  /**
   * After a deletion the service confirmed: what was made with the voice (or the consent's voices, `revokedVoices`)
   * is erased (takes/lineage.ts).
   */
  afterDeletion?: (kind: AuditKind, id: string, revokedVoices: string[], by: string) => Promise<unknown>
  /** A speech request for a saved voice the service did not find: the studio checks whether it is gone. */
  voiceNotFound?: (voiceId: string) => Promise<unknown>
}

/** The saved voice a relayed speech request named (its JSON body, held by replayable-body.ts), if any. */
function savedVoiceOfSpeech(request: ProxiedRequest): string | undefined {
  const voice = (request.body as { voice?: unknown } | undefined)?.voice
  const id = typeof voice === 'object' && voice !== null ? (voice as { id?: unknown }).id : undefined
  return typeof id === 'string' && id.startsWith('voice_') ? id : undefined
}

/** Records what a successful audited call changed. `fallbackId` is the id from the path of a DELETE. */
export async function recordSuccess(
  deps: AuditDeps,
  route: AuditedRoute,
  body: unknown,
  user: StudioUser,
  fallbackId?: string,
): Promise<AuditEvent[]> {
  const { store } = deps
  const who = { user: user.name, role: user.role }
  if (route.action === 'created') {
    const created = createdSchema.parse(body)
    const consentId =
      route.kind === 'voice'
        ? (created.consent ?? (await deps.consentOfVoice(created.id).catch(() => undefined)) ?? null)
        : null
    return [
      await store.record({
        ...who,
        kind: route.kind,
        action: 'created',
        upstreamId: created.id,
        name: created.name ?? null,
        consentId,
      }),
    ]
  }
  const id = deletedSchema.safeParse(body).data?.id ?? fallbackId
  if (!id) throw new Error('the deletion answer carries no id')
  const creation = await store.creationOf(id)
  // Voices bound to a consent go with it: the service revokes them, the trail says so.
  const revoked = route.kind === 'consent' ? await store.liveVoicesOf(id) : []
  const deleted = await store.record({
    ...who,
    kind: route.kind,
    action: 'deleted',
    upstreamId: id,
    name: creation?.name ?? null,
    consentId: creation?.consentId ?? null,
  })
  const revocations: AuditEvent[] = []
  for (const voice of revoked)
    revocations.push(
      await store.record({
        ...who,
        kind: 'voice',
        action: 'revoked',
        upstreamId: voice.upstreamId,
        name: voice.name,
        consentId: id,
      }),
    )
  return [deleted, ...revocations]
}

/** An audited answer is a small JSON object; anything past this is not one. */
const MAX_AUDITED_BODY = 256 * 1024

async function readSmall(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += (chunk as Buffer).length
    if (size > MAX_AUDITED_BODY) throw new Error('audited answer too large')
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** The request and reply types the proxy's hooks receive. */
type ProxiedRequest = FastifyRequest<RouteGenericInterface, RawServerBase>
type ProxiedReply = FastifyReply<RouteGenericInterface, RawServerBase>

function upstreamPath(request: ProxiedRequest): string {
  return request.url.replace(/^\/api/, '').split('?')[0] as string
}

/**
 * The proxy's `onResponse`: streams every answer through as before, except a 2xx answer of an audited route, which
 * is read (it is a small JSON object), recorded, then sent unchanged.
 */
export function auditingOnResponse(deps: AuditDeps) {
  return (request: ProxiedRequest, reply: ProxiedReply, res: { stream: Readable }) => {
    const path = upstreamPath(request)
    const route = auditedRoute(request.method, path)
    const user = request.studioUser
    // Speech with a voice the service no longer has: the first touch since it went erases its takes.
    if (deps.voiceNotFound && reply.statusCode === 404 && path === '/v1/audio/speech') {
      const voiceId = savedVoiceOfSpeech(request)
      if (voiceId)
        deps
          .voiceNotFound(voiceId)
          .catch((err) =>
            request.log.error({ err: (err as Error).message }, 'erasure after voice_not_found failed'),
          )
    }
    if (!route || !user || reply.statusCode < 200 || reply.statusCode >= 300) {
      reply.send(res.stream)
      return
    }
    void (async () => {
      let body: Buffer
      try {
        body = await readSmall(res.stream)
      } catch (err) {
        res.stream.destroy()
        reply.send(err)
        return
      }
      const fallbackId = path.split('/').at(-1)
      let events: AuditEvent[] = []
      let parsed: unknown
      try {
        parsed = JSON.parse(body.toString('utf8'))
        events = await recordSuccess(deps, route, parsed, user, fallbackId)
      } catch (err) {
        // The change happened upstream; the caller still gets its answer. The error names no id.
        request.log.error({ err: (err as Error).message, kind: route.kind }, 'audit record failed')
      }
      const id = deletedSchema.safeParse(parsed).data?.id ?? fallbackId
      if (route.action === 'deleted' && deps.afterDeletion && id)
        try {
          const revoked = events.filter((e) => e.action === 'revoked').map((e) => e.upstreamId)
          await deps.afterDeletion(route.kind, id, revoked, user.name)
        } catch (err) {
          // The periodic voice check erases what this could not.
          request.log.error(
            { err: (err as Error).message, kind: route.kind },
            'erasure after deletion failed',
          )
        }
      reply.send(body)
    })()
  }
}

const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.coerce.number().int().positive().optional(),
  kind: z.enum(AUDIT_KINDS).optional(),
})

const AUDIT_READERS = new Set(['admin', 'consent_admin'])

/**
 * GET /api/audit: the trail, newest first, paged by `before` (an event id) and `limit`, optionally one `kind`.
 * GET /api/audit/origins: the creation event of every consent and voice still live, for provenance.
 * GET /api/audit/erasures: what revocations erased, per designer (counts of takes), newest first.
 * GET /api/audit/consents/:id/record: one consent's whole record as a JSON download (consent-record.ts).
 * Both for administrators and consent administrators only.
 */
export function registerAuditRoutes(app: FastifyInstance, store: AuditStore) {
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.studioUser) return refuse(reply, notSignedIn())
    if (!AUDIT_READERS.has(request.studioUser.role))
      return refuse(
        reply,
        forbiddenForRole('Only administrators and consent administrators may read the audit trail.'),
      )
  }

  app.get('/api/audit', { preHandler: guard }, async (request, reply) => {
    const parsed = listQuerySchema.safeParse(request.query)
    if (!parsed.success) {
      const param = parsed.error.issues[0]?.path.join('.') || null
      return refuse(reply, invalidBody(param, `Invalid ${param ?? 'query'}.`))
    }
    const { events, hasMore } = await store.list(parsed.data)
    const page: AuditPage = {
      object: 'list',
      data: events.map(toJson),
      has_more: hasMore,
      next_before: hasMore ? (events.at(-1)?.id ?? null) : null,
    }
    return reply.header('cache-control', 'no-store').send(page)
  })

  app.get('/api/audit/origins', { preHandler: guard }, async (_request, reply) => {
    const origins: AuditOrigins = { object: 'list', data: (await store.origins()).map(toJson) }
    return reply.header('cache-control', 'no-store').send(origins)
  })

  app.get<{ Params: { id: string } }>(
    '/api/audit/consents/:id/record',
    { preHandler: guard },
    async (request, reply) => {
      const id = request.params.id
      if (!consentIdPattern.test(id)) return refuse(reply, notFound('No record of that consent.'))
      const trail = await store.consentTrail(id)
      if (trail.events.length === 0 && !trail.link)
        return refuse(reply, notFound('No record of that consent.'))
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="consent-record-${id}.json"`)
        .send(consentRecord(id, trail))
    },
  )

  app.get('/api/audit/erasures', { preHandler: guard }, async (_request, reply) => {
    const erasures: TakeErasures = { object: 'list', data: await store.erasures() }
    return reply.header('cache-control', 'no-store').send(erasures)
  })
}
