import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Role } from '../../../schema/index.ts'
import { type HostPolicy, localPort, originAllowed } from '../auth/host-guard.ts'
import { forbiddenForRole, notForwarded, notSignedIn, originRefused, refuse } from '../errors.ts'

/**
 * Which upstream routes each role reaches through the backend. Anything not listed is refused before forwarding.
 * Consent administrators may also synthesize, to preview a saved voice with a sample line.
 */
const ROUTES: Array<{ method: string; path: RegExp; roles: readonly Role[] }> = [
  { method: 'POST', path: /^\/v1\/audio\/speech$/, roles: ['designer', 'consent_admin'] },
  // Where the service sends a speech request at capacity (4.1); the browser follows it through the backend.
  {
    method: 'GET',
    path: /^\/v1\/audio\/speech\/continuations\/[0-9a-f]{32}$/,
    roles: ['designer', 'consent_admin'],
  },
  { method: 'GET', path: /^\/v1\/voices$/, roles: ['designer', 'consent_admin'] },
  { method: 'GET', path: /^\/v1\/tts\/realtime$/, roles: ['designer'] },
  { method: 'POST', path: /^\/v1\/audio\/voices$/, roles: ['consent_admin'] },
  { method: 'DELETE', path: /^\/v1\/audio\/voices\/[\w-]+$/, roles: ['consent_admin'] },
  { method: 'GET', path: /^\/v1\/audio\/voice_consents(\/[\w-]+)?$/, roles: ['consent_admin'] },
  { method: 'POST', path: /^\/v1\/audio\/voice_consents$/, roles: ['consent_admin'] },
  { method: 'DELETE', path: /^\/v1\/audio\/voice_consents\/[\w-]+$/, roles: ['consent_admin'] },
  { method: 'POST', path: /^\/v1\/audio\/transcriptions$/, roles: ['reviewer'] },
  // Live transcription: the backend's socket bridge mints the ephemeral secret itself (live/transcription.ts);
  // POST /v1/realtime/client_secrets is deliberately absent, so no browser reaches it.
  { method: 'GET', path: /^\/v1\/realtime$/, roles: ['reviewer'] },
  // Live transcription over WebRTC: the backend's own routes relay the SDP exchange with a secret it mints
  // (live/calls.ts); the proxy never forwards these.
  { method: 'POST', path: /^\/v1\/realtime\/calls$/, roles: ['reviewer'] },
  { method: 'DELETE', path: /^\/v1\/realtime\/calls\/[\w-]+$/, roles: ['reviewer'] },
]

export type Access = 'allowed' | 'forbidden' | 'unknown'

/** `unknown` when no role may use the route (404), `forbidden` when another role may (403). */
export function upstreamAccess(role: Role, method: string, path: string): Access {
  const route = ROUTES.find((r) => r.method === method && r.path.test(path))
  if (!route) return 'unknown'
  return role === 'admin' || route.roles.includes(role) ? 'allowed' : 'forbidden'
}

/**
 * A redirect from the service (its capacity continuation, 4.1) names a path on the service, relative or absolute; the
 * browser can only reach it through the backend's `/api` prefix, where the same access rules apply.
 */
export function upstreamLocationToStudio<H extends Record<string, unknown>>(
  headers: H,
  upstreamBase: string,
): H {
  const location = headers.location
  if (typeof location !== 'string') return headers
  const upstream = new URL(upstreamBase)
  const target = new URL(location, upstream)
  if (target.origin !== upstream.origin || !target.pathname.startsWith('/v1/')) return headers
  return { ...headers, location: `/api${target.pathname}${target.search}` }
}

/** Signed in, and the role may use this upstream route; otherwise the reply is sent here. */
export function authorizeUpstream(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.replace(/^\/api/, '').split('?')[0] as string
  if (!request.studioUser) return refuse(reply, notSignedIn())
  const access = upstreamAccess(request.studioUser.role, request.method, path)
  if (access === 'unknown') return refuse(reply, notForwarded(request.method, path))
  if (access === 'forbidden')
    return refuse(reply, forbiddenForRole(`Your role may not use ${request.method} ${path}.`))
}

/** `authorizeUpstream` for a socket bridge, after the page's origin. */
export function authorizeSocket(hosts: HostPolicy) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // Cookies ride along on cross-site WebSocket upgrades, so the page's origin must be this studio's: judged by
    // configuration and the port the connection came in on, never by the request's own Host (auth/host-guard.ts).
    if (!originAllowed(hosts, request.headers.origin, localPort(request)))
      return refuse(reply, originRefused())
    return authorizeUpstream(request, reply)
  }
}
