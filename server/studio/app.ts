import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import httpProxy from '@fastify/http-proxy'
import fastifyStatic from '@fastify/static'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { Health, UpstreamKind } from '../../schema/index.ts'
import { auditingOnResponse, catalogConsentLookup, registerAuditRoutes } from './audit/routes.ts'
import { AuditStore } from './audit/store.ts'
import { type HostPolicy, localPort, originAllowed, registerHostGuard } from './auth/host-guard.ts'
import { type AuthOptions, CSRF_HEADER, registerAuth } from './auth/routes.ts'
import { SessionStore } from './auth/sessions.ts'
import { UserStore } from './auth/users.ts'
import type { StudioStorage } from './database.ts'
import { refuse, registerErrorHandler } from './errors.ts'
import { liveBridgeOptions } from './live/transcription.ts'
import { upstreamAccess, upstreamLocationToStudio } from './proxy/access.ts'
import { bufferSmallJson } from './proxy/replayable-body.ts'
import { DEFAULT_RETRY_POLICY, type RetryPolicy, upstreamRetry } from './proxy/retry.ts'
import { markUpstreamStart, withStudioTiming } from './proxy/server-timing.ts'
import { abortingDispatcher, abortUpstreamWhenClientLeaves, markProxied } from './proxy/upstream-abort.ts'
import { registerWsBridge } from './proxy/ws-bridge.ts'
import { registerScriptRoutes } from './scripts/routes.ts'
import { ScriptStore } from './scripts/store.ts'
import { registerTakeRoutes } from './takes/routes.ts'
import { TakeStore } from './takes/store.ts'
import { registerTranscriptRoutes } from './transcripts/routes.ts'
import { TranscriptStore } from './transcripts/store.ts'

/** Where the backend sends the studio's speech requests, and the durable key it injects (never sent to browsers). */
export interface Upstream {
  baseUrl: string
  apiKey: string
  kind: UpstreamKind
}

export interface StudioOptions {
  upstream: Upstream
  /** The backend's state: studio.db or PostgreSQL (database.ts `openStudioStorage`); the caller closes it. */
  db: StudioStorage
  /** Open an admin session without sign-in while no user exists. Only for loopback with the embedded service. */
  autoLocalAdmin: boolean
  /**
   * Where live sessions spool their audio while they last (`spool/` inside it; kept recordings are in the database).
   * Default: the directory of studio.db; required on PostgreSQL.
   */
  dataDir?: string
  /** The built single-page app; when absent the backend serves only the API (e.g. under `vite dev`). */
  staticDir?: string
  logger?: FastifyServerOptions['logger']
  /**
   * Which Host names are answered and which page origins may open sockets (auth/host-guard.ts). Default: loopback only,
   * no configured origin, as `npm start` runs.
   */
  hosts?: HostPolicy
  signInLimit?: AuthOptions['signInLimit']
  /** Count sign-in attempts in Redis, shared by every instance (`REDIS_URL`); the caller owns the connection. */
  redis?: AuthOptions['redis']
  hashing?: AuthOptions['hashing']
  retry?: Partial<RetryPolicy>
}

/** Signed in, and the role may use this upstream route; otherwise the reply is sent here. */
function authorizeUpstream(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.replace(/^\/api/, '').split('?')[0] as string
  if (!request.studioUser) return refuse(reply, 401, 'Not signed in.')
  const access = upstreamAccess(request.studioUser.role, request.method, path)
  if (access === 'unknown')
    return refuse(reply, 404, `The studio does not forward ${request.method} ${path}.`)
  if (access === 'forbidden') return refuse(reply, 403, `Your role may not use ${request.method} ${path}.`)
}

export async function createStudio(opts: StudioOptions) {
  const { upstream } = opts
  const storage = opts.db
  await storage.ready
  const dataDir = opts.dataDir ?? (storage.file ? dirname(storage.file) : undefined)
  if (!dataDir) throw new Error('createStudio: dataDir is required when the state is in PostgreSQL')
  // Shutdown must not wait on streams whose clients stopped reading.
  const app = Fastify({
    logger: opts.logger ?? false,
    forceCloseConnections: true,
    // Paths the router cannot read (bad percent-encoding, an id past the parameter limit) in the studio's shape.
    frameworkErrors: (error, _request, reply) =>
      refuse(reply, error.statusCode ?? 400, 'The address of this request is not valid.'),
  })
  const hosts = opts.hosts ?? { loopbackOnly: true, origins: [] }
  // First of all hooks: a request for a name this studio does not answer to gets no session and no answer.
  registerHostGuard(app, hosts)
  registerErrorHandler(app)
  await registerAuth(app, {
    users: new UserStore(storage),
    sessions: new SessionStore(storage),
    autoLocalAdmin: opts.autoLocalAdmin,
    signInLimit: opts.signInLimit,
    redis: opts.redis,
    hashing: opts.hashing,
  })

  app.get('/api/health', async (_request, reply) => {
    const health = await fetch(new URL('/health', upstream.baseUrl), { signal: AbortSignal.timeout(2000) })
      .then((r) => (r.ok ? (r.json() as Promise<{ engines?: Record<string, boolean> }>) : null))
      .catch(() => null)
    const engines = {
      synthesis: health?.engines?.synthesis === true,
      recognition: health?.engines?.recognition === true,
      diarization: health?.engines?.diarization === true,
    }
    const complete = health !== null && Object.values(engines).every(Boolean)
    // The shape the app shell parses (schema/health.ts).
    const answer: Health = {
      status: complete ? 'ok' : 'degraded',
      upstream: { kind: upstream.kind, reachable: health !== null },
      engines,
    }
    return reply.header('cache-control', 'no-store').send(answer)
  })

  const audit = new AuditStore(storage)
  registerAuditRoutes(app, audit)

  await app.register(httpProxy, {
    upstream: upstream.baseUrl,
    prefix: '/api/v1',
    rewritePrefix: '/v1',
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
      await authorizeUpstream(request, reply)
      abortUpstreamWhenClientLeaves(request, reply)
      // A small JSON body is read here so that a 429/503 can be retried with it (proxy/retry.ts); others stream through.
      if (!reply.sent) await bufferSmallJson(request)
      markUpstreamStart(request, reply)
    },
    // The browser leaving ends the upstream request too (proxy/upstream-abort.ts).
    undici: abortingDispatcher(),
    replyOptions: {
      // The browser never holds a key: the backend's key replaces whatever came in, and cookies stay here.
      rewriteRequestHeaders: (request, headers) => {
        const { cookie: _cookie, [CSRF_HEADER]: _csrf, ...rest } = headers
        return markProxied(request, { ...rest, authorization: `Bearer ${upstream.apiKey}` })
      },
      // A capacity redirect names the service's path; the browser must follow it through the backend instead.
      rewriteHeaders: (headers, request) =>
        withStudioTiming(upstreamLocationToStudio(headers, upstream.baseUrl), request),
      // 429 and 503 answered before any streaming are retried here, politely (proxy/retry.ts).
      retryDelay: upstreamRetry({ ...DEFAULT_RETRY_POLICY, ...opts.retry }),
      // Consent and voice creations and deletions that succeeded go into the audit trail (audit/routes.ts).
      onResponse: auditingOnResponse({ store: audit, consentOfVoice: catalogConsentLookup(upstream) }),
    },
  })
  // Registered after the proxy, as @fastify/websocket requires; the bridge's exact route wins over the proxy's wildcard.
  await app.register(websocket)
  const authorizeSocket = async (request: FastifyRequest, reply: FastifyReply) => {
    // Cookies ride along on cross-site WebSocket upgrades, so the page's origin must be this studio's: judged by
    // configuration and the port the connection came in on, never by the request's own Host (auth/host-guard.ts).
    if (!originAllowed(hosts, request.headers.origin, localPort(request)))
      return refuse(reply, 403, 'Cross-origin socket refused.')
    return authorizeUpstream(request, reply)
  }
  registerWsBridge(app, '/v1/tts/realtime', upstream, authorizeSocket)
  const transcripts = new TranscriptStore(storage, dataDir)
  const { adopted, swept } = await transcripts.adoptFiles()
  if (adopted + swept > 0) app.log.info({ adopted, swept }, 'transcript recordings moved into the database')
  registerWsBridge(app, '/v1/realtime', upstream, authorizeSocket, liveBridgeOptions(upstream, transcripts))
  registerTranscriptRoutes(app, transcripts, upstream)
  registerScriptRoutes(app, new ScriptStore(storage))
  registerTakeRoutes(app, new TakeStore(storage))

  const hasApp = !!opts.staticDir && existsSync(join(opts.staticDir, 'index.html'))
  if (hasApp) await app.register(fastifyStatic, { root: opts.staticDir as string, wildcard: false })
  // Client-side routes fall back to the app; unknown /api paths (and everything, without an app) are 404s.
  app.setNotFoundHandler((request, reply) =>
    hasApp && request.method === 'GET' && !request.url.startsWith('/api/')
      ? reply.sendFile('index.html')
      : refuse(reply, 404, 'Not found.'),
  )
  return app
}
