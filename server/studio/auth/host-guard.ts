import { isIP } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { hostRefused, refuse } from '../errors.ts'

/**
 * Which names a browser may use to reach the studio, and which page origins may open its sockets.
 *
 * A studio on loopback trusts whoever is at this machine (it may even sign them in as the automatic local admin), so
 * it must be reached by a loopback name: a web page whose DNS name is re-bound to 127.0.0.1 sends its own name in
 * `Host`, and is refused here before any session is made (DNS rebinding). Extra names, for a reverse proxy in front,
 * come from the configured public origins.
 */
export interface HostPolicy {
  /** The studio listens on loopback only: Host must be a loopback name or address, or a configured origin's host. */
  loopbackOnly: boolean
  /** The page origins the studio is served at (`STUDIO_ORIGIN`), e.g. `https://studio.example.org`. */
  origins: readonly string[]
}

/** Splits a Host header into name and port; null when it is not a host at all. */
function parseHost(host: string): { name: string; port: string } | null {
  // URL does the parsing (IPv6 brackets, ports, percent-encoding): the scheme is only a carrier.
  try {
    const url = new URL(`http://${host}`)
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null
    return { name: url.hostname.toLowerCase(), port: url.port }
  } catch {
    return null
  }
}

/** `localhost`, names under `.localhost` (RFC 6761: always loopback), 127.0.0.0/8 and ::1. */
export function isLoopbackName(name: string): boolean {
  const bare = name.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1'
  return false
}

/** The configured origins, normalized (`URL.origin`); a malformed one is a start-up error, not a silent hole. */
export function parseOrigins(list: string | undefined): string[] {
  if (!list) return []
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((origin) => {
      const url = new URL(origin)
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`STUDIO_ORIGIN must be http(s) origins, got ${origin}`)
      return url.origin
    })
}

export function hostAllowed(policy: HostPolicy, host: string | undefined): boolean {
  if (!policy.loopbackOnly) return true
  const parsed = host ? parseHost(host) : null
  if (!parsed) return false
  if (isLoopbackName(parsed.name)) return true
  return policy.origins.some((origin) => new URL(origin).host === new URL(`http://${host}`).host)
}

/**
 * Whether a page at `origin` may use the studio with the visitor's cookies (WebSocket upgrades, which browsers do
 * not guard with CORS). The request's own Host proves nothing (it is the attacker's under DNS rebinding), so the
 * answer depends only on configuration and on the port the connection really arrived at: a configured origin, or,
 * on a loopback studio, a loopback origin on the studio's own port.
 */
export function originAllowed(policy: HostPolicy, origin: string | undefined, localPort: number): boolean {
  // Non-browser clients send no Origin; they have no ambient cookies to abuse.
  if (origin === undefined) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // `null` (sandboxed frames, file: pages) and garbage
  }
  if (policy.origins.includes(url.origin)) return true
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return (
    policy.loopbackOnly &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    isLoopbackName(url.hostname) &&
    port === String(localPort)
  )
}

/**
 * Headers for every answer: the app's pages may load only their own scripts and may not be framed (clickjacking);
 * nothing is sniffed; no URL leaks in Referer. WebAssembly (audio encoders) and blob workers and media are the app's own.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self' data: blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

/** Refuses requests for a host the studio does not answer to, and sets the security headers on every answer. */
export function registerHostGuard(app: FastifyInstance, policy: HostPolicy) {
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS)
    if (!hostAllowed(policy, request.headers.host)) {
      // A refused WebSocket upgrade has no HTTP connection to return to, and @fastify/websocket only closes the ones
      // its own (later) hook has seen: close it once the answer is out.
      if (request.headers.upgrade) reply.raw.once('finish', () => request.raw.socket?.destroy())
      // 421 Misdirected Request: this server is not configured to answer for that name.
      return refuse(reply, hostRefused())
    }
  })
}

/** The port the request's connection arrived at (not the Host header, which the client writes). */
export function localPort(request: FastifyRequest): number {
  return request.socket.localPort ?? 0
}
