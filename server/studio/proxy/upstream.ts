import httpProxy from '@fastify/http-proxy'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { UpstreamKind } from '../../../schema/index.ts'
import { CSRF_HEADER } from '../auth/routes.ts'
import { upstreamLocationToStudio } from './access.ts'
import { bufferSmallJson } from './replayable-body.ts'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, upstreamRetry } from './retry.ts'
import { markUpstreamStart, withStudioTiming } from './server-timing.ts'
import { abortingDispatcher, abortUpstreamWhenClientLeaves, markProxied } from './upstream-abort.ts'

/**
 * The one way the studio backend talks to the speech service. Every call — the proxied `/api/v1/*` routes, the
 * transcript upload, the socket bridges, the client secrets of live transcription, the audit's catalog lookup, the
 * health check — goes through here: the service's address, the bearer header with the backend's durable key (never
 * sent to browsers), ending a call when its browser leaves, and retrying 429/503 answers before anything streamed.
 */

/** Where the backend sends the studio's speech requests, and the durable key it injects (never sent to browsers). */
export interface Upstream {
  baseUrl: string
  apiKey: string
  kind: UpstreamKind
}

/** The `authorization` header for a bearer: the backend's durable key, or a credential minted for one session. */
export function bearerHeader(bearer: string): { authorization: string } {
  return { authorization: `Bearer ${bearer}` }
}

/** A service path (`/v1/…`, with its query) as an http(s) address. */
export function upstreamUrl(upstream: Upstream, path: string): URL {
  return new URL(path, upstream.baseUrl)
}

/** A service path as a ws(s) address, for the socket bridges. */
export function upstreamSocketUrl(upstream: Upstream, path: string): string {
  return `${upstream.baseUrl.replace(/^http/, 'ws')}${path}`
}

export interface UpstreamCall extends Omit<RequestInit, 'headers' | 'signal'> {
  headers?: Record<string, string>
  /** Gives up after this long. */
  timeoutMs?: number
  /** Ends the call early (`whileClientStays`: when the browser leaves). */
  signal?: AbortSignal
  /** Without the backend's key (the health check, which needs none). */
  anonymous?: boolean
}

/** One call to the service, with the backend's key unless `anonymous`; rejects when it cannot be reached. */
export function callUpstream(upstream: Upstream, path: string, call: UpstreamCall = {}): Promise<Response> {
  const { headers, timeoutMs, signal, anonymous, ...init } = call
  const signals = [signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter(
    (s): s is AbortSignal => s !== undefined,
  )
  return fetch(upstreamUrl(upstream, path), {
    ...init,
    headers: anonymous ? { ...headers } : { ...headers, ...bearerHeader(upstream.apiKey) },
    signal: signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals),
  })
}

/** A signal that aborts when the browser's response closes before it finished: the service's work stops too. */
export function whileClientStays(reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  return controller.signal
}

/** The browser's headers as sent upstream: its cookies and CSRF token stay here, the backend's key replaces any. */
export function forwardedHeaders(upstream: Upstream, headers: Record<string, unknown>) {
  const { cookie: _cookie, [CSRF_HEADER]: _csrf, authorization: _authorization, ...rest } = headers
  return { ...rest, ...bearerHeader(upstream.apiKey) }
}

export interface ProxyOptions {
  /** Signed in, and the role may use this route; otherwise the reply is sent there. */
  authorize: (request: FastifyRequest, reply: FastifyReply) => unknown
  retry?: Partial<RetryPolicy>
  /** Sees each answer before it is relayed (the audit trail). */
  onResponse?: NonNullable<Parameters<typeof httpProxy>[1]['replyOptions']>['onResponse']
}

/**
 * `/api/v1/*` relayed to the service's `/v1/*`: the role checked first, the key injected, a capacity redirect rewritten
 * under `/api`, the upstream request ended when the browser leaves (upstream-abort.ts), and a 429/503 answered before
 * any streaming retried politely with a small JSON body held for it (retry.ts, replayable-body.ts).
 */
export async function registerUpstreamProxy(app: FastifyInstance, upstream: Upstream, opts: ProxyOptions) {
  await app.register(httpProxy, {
    upstream: upstream.baseUrl,
    prefix: '/api/v1',
    rewritePrefix: '/v1',
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
      await opts.authorize(request, reply)
      abortUpstreamWhenClientLeaves(request, reply)
      if (!reply.sent) await bufferSmallJson(request)
      markUpstreamStart(request, reply)
    },
    undici: abortingDispatcher(),
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => markProxied(request, forwardedHeaders(upstream, headers)),
      rewriteHeaders: (headers, request) =>
        withStudioTiming(upstreamLocationToStudio(headers, upstream.baseUrl), request),
      retryDelay: upstreamRetry({ ...DEFAULT_RETRY_POLICY, ...opts.retry }),
      ...(opts.onResponse ? { onResponse: opts.onResponse } : {}),
    },
  })
}
