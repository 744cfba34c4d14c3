import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type HostPolicy, localPort, originAllowed } from '../auth/host-guard.ts'
import {
  invalidBody,
  notFound,
  originRefused,
  refuse,
  unsupportedMediaType,
  upstreamUnreachable,
} from '../errors.ts'
import { authorizeUpstream } from '../proxy/access.ts'
import { bearerHeader, callUpstream, type Upstream } from '../proxy/upstream.ts'
import type { UpstreamRefusal } from '../proxy/ws-bridge.ts'
import { mintClientSecret } from './transcription.ts'

/**
 * Live transcription over WebRTC through the backend (docs/transcription.md, "The studio over WebRTC"). The browser
 * posts its SDP offer to `POST /api/v1/realtime/calls`; the backend mints an `ek_` client secret for one
 * transcription session (diarization off: the service does not attribute speakers on this transport) and places the
 * call at the service's `POST /v1/realtime/calls` with it. The answer comes back as the service sent it, its
 * `Location` under `/api`; media then flows between the browser and the service directly. Neither the durable key nor
 * the secret reaches the browser. `DELETE /api/v1/realtime/calls/{id}` hangs up, for the studio user who placed the
 * call only (the service knows the backend's organization, not the studio's users, so the backend remembers whose
 * each call is). Who may call: the role table's `POST /v1/realtime/calls` (proxy/access.ts), as for the socket.
 */

/** An SDP offer is a few kilobytes; the service refuses more than this too. */
export const MAX_OFFER_BYTES = 64 * 1024

/** The service's call ids (`rtc_…`), as its `Location` names them. */
const CALL_LOCATION = /^\/v1\/realtime\/calls\/(rtc_[0-9a-f]{1,64})$/

/** A call's owner is forgotten after this long, whether or not it was hung up through here. */
const CALL_MEMORY_MS = 12 * 60 * 60 * 1000

/** Headers of the service's answer the browser gets too (capacity and request ids). */
const PASSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit-concurrent-sessions',
  'x-ratelimit-remaining-concurrent-sessions',
]

/** Whose each call in progress is, by the service's call id. In process: a call lives on the instance that placed it. */
export class CallOwners {
  private readonly owners = new Map<string, { user: string; at: number }>()

  constructor(private readonly now: () => number = Date.now) {}

  add(id: string, user: string) {
    const now = this.now()
    for (const [key, entry] of this.owners) if (now - entry.at > CALL_MEMORY_MS) this.owners.delete(key)
    this.owners.set(id, { user, at: now })
  }

  ownedBy(id: string, user: string): boolean {
    return this.owners.get(id)?.user === user
  }

  delete(id: string) {
    this.owners.delete(id)
  }

  get size() {
    return this.owners.size
  }
}

function relay(
  reply: FastifyReply,
  res: Response | UpstreamRefusal,
  body: string,
  extra: Record<string, string> = {},
) {
  const headers = res instanceof Response ? Object.fromEntries(res.headers) : res.headers
  reply.code(res.status).header('cache-control', 'no-store').headers(extra)
  reply.header('content-type', headers['content-type'] ?? 'application/json')
  for (const name of PASSED_HEADERS) if (headers[name] !== undefined) reply.header(name, headers[name])
  return reply.send(body)
}

const callNotFound = () => notFound('No call of yours in progress with this id.')

export function registerCallRoutes(
  app: FastifyInstance,
  upstream: Upstream,
  hosts: HostPolicy,
  owners = new CallOwners(),
) {
  // Signed in, a role that may, and (as for the sockets) a page of this studio when the browser names one.
  const authorize = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!originAllowed(hosts, request.headers.origin, localPort(request)))
      return refuse(reply, originRefused('Cross-origin request refused.'))
    return authorizeUpstream(request, reply)
  }

  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/sdp',
      { parseAs: 'string', bodyLimit: MAX_OFFER_BYTES },
      (_request, body, done) => done(null, body),
    )

    scope.post(
      '/api/v1/realtime/calls',
      { bodyLimit: MAX_OFFER_BYTES, preHandler: authorize },
      async (request, reply) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
        if (type !== 'application/sdp')
          return refuse(reply, unsupportedMediaType('Send the SDP offer as application/sdp.'))
        const offer = typeof request.body === 'string' ? request.body : ''
        if (offer.trim() === '') return refuse(reply, invalidBody('sdp', 'Send an SDP offer.'))
        const user = request.studioUser?.name as string
        let answer: Response
        try {
          const secret = await mintClientSecret(upstream, { diarization: { enabled: false } })
          if (typeof secret !== 'string') return relay(reply, secret, secret.body)
          answer = await callUpstream(upstream, '/v1/realtime/calls', {
            method: 'POST',
            anonymous: true,
            headers: { ...bearerHeader(secret), 'content-type': 'application/sdp' },
            body: offer,
            timeoutMs: 20_000,
          })
        } catch (err) {
          request.log.warn({ err: (err as Error).message }, 'call could not be placed')
          return refuse(reply, upstreamUnreachable())
        }
        const body = await answer.text()
        if (answer.status !== 201) return relay(reply, answer, body)
        const id = CALL_LOCATION.exec(answer.headers.get('location') ?? '')?.[1]
        if (!id) throw new Error('the service answered a call without its Location')
        owners.add(id, user)
        request.log.info({ call: id }, 'call placed')
        return relay(reply, answer, body, { location: `/api/v1/realtime/calls/${id}` })
      },
    )

    scope.delete('/api/v1/realtime/calls/:id', { preHandler: authorize }, async (request, reply) => {
      const { id } = request.params as { id: string }
      if (!owners.ownedBy(id, request.studioUser?.name as string)) return refuse(reply, callNotFound())
      let res: Response
      try {
        res = await callUpstream(upstream, `/v1/realtime/calls/${encodeURIComponent(id)}`, {
          method: 'DELETE',
          timeoutMs: 10_000,
        })
      } catch {
        return refuse(reply, upstreamUnreachable())
      }
      const body = await res.text()
      // Over either way: hung up now, or it had ended by itself (the peer connection closed).
      if (res.status === 204 || res.status === 404) owners.delete(id)
      if (res.status === 204) return reply.code(204).header('cache-control', 'no-store').send()
      if (res.status === 404) return refuse(reply, callNotFound())
      return relay(reply, res, body)
    })
  })
}
