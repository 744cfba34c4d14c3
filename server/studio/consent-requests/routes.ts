import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import {
  CONSENT_RECORDING_MAX_BYTES,
  type ConsentLink,
  type ConsentLinkRecorded,
  type ConsentRequest,
  type ConsentRequestList,
  type CreatedConsentRequest,
  consentLinkTokenPattern,
  consentRequestIdPattern,
  newConsentRequestSchema,
  voiceConsentSchema,
} from '../../../schema/index.ts'
import { type Form, FormRefusal, readMultipart } from '../../multipart.ts'
import type { AuditStore } from '../audit/store.ts'
import { type HostPolicy, localPort, originAllowed } from '../auth/host-guard.ts'
import { CONSENT_LINK_ROUTE } from '../auth/routes.ts'
import {
  RedisSignInLimiter,
  type SignInCounter,
  type SignInLimit,
  SignInLimiter,
} from '../auth/sign-in-limit.ts'
import {
  conflict,
  consentLinkUnusable,
  forbiddenForRole,
  formRefused,
  invalidBody,
  notFound,
  notSignedIn,
  originRefused,
  rateLimited,
  refuse,
  scopeErrorHandler,
  signInUnavailable,
  upstreamUnreachable,
} from '../errors.ts'
import { upstreamAccess } from '../proxy/access.ts'
import { callUpstream, type Upstream } from '../proxy/upstream.ts'
import type { ConsentRequestStore, StoredRequest } from './store.ts'

/**
 * Remote consent (docs/voices-and-consents.md, Remote consent).
 *
 * Consent administrators (whoever may record a consent through the proxy, proxy/access.ts):
 * - `POST /api/consent-requests` `{ owner_name, language }`: a request and its one-time link, shown once.
 * - `GET /api/consent-requests`: the open ones. `DELETE /api/consent-requests/:id`: withdraw one before it is used.
 *
 * The voice's owner, without an account, by the link's token alone:
 * - `GET /consent/:token`: the app (which shows the owner's page), or a plain 410 page.
 * - `GET /api/consent-links/:token`: who asks, for whom, in which language.
 * - `POST /api/consent-links/:token` (multipart: `recording`, optional `consent_transcript`): sent on to the service's
 *   `POST /v1/audio/voice_consents` with the backend's key, under the name and language the administrator gave;
 *   the service's refusals come back as they are, so the page gives the administrator's form's advice.
 *
 * A link that is used, expired, withdrawn or unknown answers one and the same 410. Failed attempts are counted per
 * address, in Redis when the studio has it (as sign-ins are), so guesses spread over instances count together.
 */

/** The owner's page: `CONSENT_LINK_PREFIX` + token. */
export const CONSENT_LINK_PREFIX = '/consent/'

/** How long one send may hold the link: the page waits up to 4 minutes for the service's answer, plus the upload. */
const CLAIM_HOLD_MS = 6 * 60_000
const TRANSCRIPT_MAX_CHARS = 1024

export interface ConsentRequestOptions {
  store: ConsentRequestStore
  audit: AuditStore
  upstream: Upstream
  hosts: HostPolicy
  /** How long a link lasts (STUDIO_CONSENT_LINK_HOURS). */
  ttlMs: number
  /** Failed link attempts allowed per address within a window. */
  limit: SignInLimit
  /** The sign-in counter's Redis, shared by every instance; keys of their own under its prefix. */
  redis?: { client: Redis; prefix?: string }
  /** The built app's index.html is served for a usable link; without it the page route answers 404 for one. */
  sendApp?: (reply: FastifyReply) => unknown
}

/** The plain page of an unusable link: no script, no app, nothing that says why. */
const UNUSABLE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Consent link not usable</title></head>
<body>
<main>
<h1>This consent link cannot be used</h1>
<p>A consent link works once, for a limited time, and can be withdrawn. Ask the person who sent it to you for a new one.</p>
</main>
</body>
</html>
`

const mayRequest = (role: string) =>
  upstreamAccess(role as never, 'POST', '/v1/audio/voice_consents') === 'allowed'

const toAnswer = ({ createdByRole: _role, ...request }: StoredRequest): ConsentRequest => request

/** Reads the owner's upload: the recording and an optional transcript; throws the multipart plugin's errors. */
/** What the owner's page sends: the recording and, when they typed or it heard one, the phrase they said. */
const RECORDING_FORM = {
  fields: ['consent_transcript'],
  files: { recording: CONSENT_RECORDING_MAX_BYTES },
  maxFieldBytes: TRANSCRIPT_MAX_CHARS * 4,
} as const

export function registerConsentRequestRoutes(app: FastifyInstance, opts: ConsentRequestOptions) {
  const { store, audit, upstream } = opts
  const attempts: SignInCounter = opts.redis
    ? new RedisSignInLimiter(
        opts.redis.client,
        opts.limit,
        `${opts.redis.prefix ?? 'studio:sign-in:'}consent-link:`,
      )
    : new SignInLimiter(opts.limit)

  // The administrators' side.
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.studioUser
    if (!user) return refuse(reply, notSignedIn())
    if (!mayRequest(user.role))
      return refuse(reply, forbiddenForRole('Only consent administrators ask for consent by link.'))
  }

  app.post('/api/consent-requests', { preHandler: guard }, async (request, reply) => {
    const parsed = newConsentRequestSchema.safeParse(request.body)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const param = issue?.path.join('.') || null
      return refuse(
        reply,
        invalidBody(
          param,
          issue?.code === 'custom' || param
            ? (issue?.message ?? 'Invalid.')
            : 'Send owner_name and language only.',
        ),
      )
    }
    const user = request.studioUser as NonNullable<FastifyRequest['studioUser']>
    const { request: created, token } = await store.create({
      ownerName: parsed.data.owner_name,
      language: parsed.data.language,
      by: user.name,
      role: user.role,
      ttlMs: opts.ttlMs,
    })
    const answer: CreatedConsentRequest = { ...toAnswer(created), path: `${CONSENT_LINK_PREFIX}${token}` }
    return reply.code(201).header('cache-control', 'no-store').send(answer)
  })

  app.get('/api/consent-requests', { preHandler: guard }, async (_request, reply) => {
    const list: ConsentRequestList = { object: 'list', data: (await store.listOpen()).map(toAnswer) }
    return reply.header('cache-control', 'no-store').send(list)
  })

  app.delete<{ Params: { id: string } }>(
    '/api/consent-requests/:id',
    { preHandler: guard },
    async (request, reply) => {
      const { id } = request.params
      if (!consentRequestIdPattern.test(id)) return refuse(reply, notFound('No such open consent request.'))
      const outcome = await store.revoke(id)
      if (outcome === 'used')
        return refuse(reply, conflict('This link has been used: revoke the consent it brought instead.'))
      if (outcome === 'not_found') return refuse(reply, notFound('No such open consent request.'))
      return reply.header('cache-control', 'no-store').send({ id, object: 'consent_request', revoked: true })
    },
  )

  // The owner's side: the token, counted, and nothing else.

  /**
   * Counts an attempt for the address before the token is looked at; the reply is sent (429, 503) when it may not go
   * ahead. A token that opens a link is not held against the address (`forgive`).
   */
  const counted = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = request.ip
    let begun: { wait: number; attempt: string }
    try {
      begun = await attempts.begin(key)
    } catch (err) {
      request.log.error({ err: (err as Error).message }, 'consent link counter unavailable')
      refuse(reply, signInUnavailable('Consent links cannot be opened for a moment. Try again shortly.', 5))
      return null
    }
    if (begun.wait > 0) {
      refuse(reply, rateLimited(Math.ceil(begun.wait / 1000)))
      return null
    }
    return { forgive: () => attempts.cancel(key, begun.attempt).catch(() => {}) }
  }

  const tokenOf = (request: FastifyRequest<{ Params: { token: string } }>) => {
    const { token } = request.params
    return consentLinkTokenPattern.test(token) ? token : null
  }

  app.get<{ Params: { token: string } }>(`${CONSENT_LINK_PREFIX}:token`, async (request, reply) => {
    const attempt = await counted(request, reply)
    if (!attempt) return reply
    const token = tokenOf(request)
    const found = token ? await store.usable(token) : undefined
    if (!found || !opts.sendApp) {
      if (found) {
        await attempt.forgive()
        return refuse(reply, notFound())
      }
      return reply
        .code(410)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(UNUSABLE_PAGE)
    }
    await attempt.forgive()
    reply.header('cache-control', 'no-store')
    return opts.sendApp(reply)
  })

  app.get<{ Params: { token: string } }>(CONSENT_LINK_ROUTE, async (request, reply) => {
    const attempt = await counted(request, reply)
    if (!attempt) return reply
    const token = tokenOf(request)
    const found = token ? await store.usable(token) : undefined
    if (!found) return refuse(reply, consentLinkUnusable())
    await attempt.forgive()
    const link: ConsentLink = {
      object: 'consent_link',
      owner_name: found.owner_name,
      language: found.language,
      requested_by: found.created_by,
      expires_at: found.expires_at,
    }
    return reply.header('cache-control', 'no-store').send(link)
  })

  app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true })
    scope.setErrorHandler(scopeErrorHandler({ internal: 'The consent could not be received.' }))

    scope.post<{ Params: { token: string } }>(CONSENT_LINK_ROUTE, async (request, reply) => {
      // No session is asked for, so no CSRF token: a page elsewhere may not post here on its visitor's behalf.
      const origin = request.headers.origin
      if (origin !== undefined && !originAllowed(opts.hosts, origin, localPort(request)))
        return refuse(
          reply.header('connection', 'close'),
          originRefused('Send the consent from the studio’s own page.'),
        )
      const attempt = await counted(request, reply)
      if (!attempt) return reply.header('connection', 'close')
      const token = tokenOf(request)
      const claimed = token ? await store.claim(token, CLAIM_HOLD_MS) : undefined
      // The body of a refused link is never read: closing the connection is cheaper than draining it.
      if (!claimed) return refuse(reply.header('connection', 'close'), consentLinkUnusable())
      await attempt.forgive()
      if (claimed === 'busy')
        return refuse(
          reply.header('connection', 'close'),
          conflict(
            'A recording is being sent through this link right now. Wait for it, then reload the page.',
          ),
        )
      const { request: link, claim } = claimed
      let handedOver = false
      // The answer is sent only once the link is handed back, so the owner's next try never finds it still held.
      const receive = async (): Promise<() => FastifyReply> => {
        let sentForm: Form
        try {
          sentForm = await readMultipart(request, RECORDING_FORM)
        } catch (err) {
          if (!(err instanceof FormRefusal)) throw err
          return () => refuse(reply, formRefused(err))
        }
        const transcript = sentForm.fields.consent_transcript
        const sent = sentForm.files.recording
        const recording = sent && {
          bytes: sent.bytes,
          filename: (sent.filename || 'consent').replace(/[^\w.-]/g, '_').slice(0, 100),
          type: sent.mimetype || 'application/octet-stream',
        }
        if (!recording)
          return () =>
            refuse(reply, invalidBody('recording', 'Add the recording as the form field "recording".'))
        if (recording.bytes.length === 0)
          return () => refuse(reply, invalidBody('recording', 'The recording is empty.'))
        if (transcript !== undefined && transcript.length > TRANSCRIPT_MAX_CHARS)
          return () => refuse(reply, invalidBody('consent_transcript', 'The transcript is too long.'))

        const form = new FormData()
        form.set('name', link.owner_name)
        form.set('language', link.language)
        if (transcript?.trim()) form.set('consent_transcript', transcript.trim())
        form.set(
          'recording',
          new Blob([new Uint8Array(recording.bytes)], { type: recording.type }),
          recording.filename,
        )
        let answer: Response
        try {
          answer = await callUpstream(upstream, '/v1/audio/voice_consents', { method: 'POST', body: form })
        } catch {
          return () => refuse(reply, upstreamUnreachable())
        }
        const body = await answer.text()
        if (!answer.ok) {
          // The service's refusal as the administrator's form gets it through the proxy: the same advice follows.
          const retryAfter = answer.headers.get('retry-after')
          if (retryAfter) reply.header('retry-after', retryAfter)
          return () =>
            reply
              .code(answer.status)
              .header('cache-control', 'no-store')
              .type(answer.headers.get('content-type') ?? 'application/json')
              .send(body)
        }
        const consent = voiceConsentSchema.parse(JSON.parse(body))
        if (!(await store.complete(link.id, claim, consent.id))) {
          // Withdrawn while the recording was on its way: the withdrawal wins, the consent goes.
          handedOver = true
          await callUpstream(upstream, `/v1/audio/voice_consents/${consent.id}`, { method: 'DELETE' }).catch(
            (err) =>
              request.log.error({ err: (err as Error).message }, 'consent of a withdrawn link not deleted'),
          )
          return () => refuse(reply, consentLinkUnusable())
        }
        handedOver = true
        await audit
          .record({
            user: link.created_by,
            role: link.createdByRole,
            kind: 'consent',
            action: 'created',
            upstreamId: consent.id,
            name: consent.name,
            consentId: null,
            via: 'link',
          })
          .catch((err) => request.log.error({ err: (err as Error).message }, 'audit record failed'))
        const recorded: ConsentLinkRecorded = {
          object: 'consent_link.recorded',
          owner_name: consent.name,
          language: consent.language,
        }
        return () => reply.code(201).header('cache-control', 'no-store').send(recorded)
      }
      let send: () => FastifyReply
      try {
        send = await receive()
      } finally {
        if (!handedOver) await store.release(link.id, claim).catch(() => {})
      }
      return send()
    })
  })
}
