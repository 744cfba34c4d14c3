import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import fastifyStatic from '@fastify/static'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyServerOptions } from 'fastify'
import type { Health } from '../../schema/index.ts'
import { auditingOnResponse, registerAuditRoutes } from './audit/routes.ts'
import { AuditStore } from './audit/store.ts'
import { type HostPolicy, registerHostGuard } from './auth/host-guard.ts'
import { type AuthOptions, registerAuth } from './auth/routes.ts'
import { SessionStore } from './auth/sessions.ts'
import type { SignInLimit } from './auth/sign-in-limit.ts'
import { UserStore } from './auth/users.ts'
import { registerConsentRequestRoutes } from './consent-requests/routes.ts'
import { ConsentRequestStore } from './consent-requests/store.ts'
import type { StudioStorage } from './database.ts'
import { invalidAddress, notFound, refuse, registerErrorHandler } from './errors.ts'
import { registerCallRoutes } from './live/calls.ts'
import { liveBridgeOptions } from './live/transcription.ts'
import { registerPronunciationRoutes } from './pronunciations/routes.ts'
import { PronunciationStore } from './pronunciations/store.ts'
import { authorizeSocket, authorizeUpstream } from './proxy/access.ts'
import type { RetryPolicy } from './proxy/retry.ts'
import { callUpstream, registerUpstreamProxy, type Upstream } from './proxy/upstream.ts'
import { registerWsBridge } from './proxy/ws-bridge.ts'
import { registerScriptRoutes } from './scripts/routes.ts'
import { ScriptStore } from './scripts/store.ts'
import { VoiceLineage } from './takes/lineage.ts'
import { registerTakeRoutes } from './takes/routes.ts'
import { studioSealerOf, TakeStore } from './takes/store.ts'
import { registerTranscriptRoutes } from './transcripts/routes.ts'
import { TranscriptStore } from './transcripts/store.ts'

export type { Upstream } from './proxy/upstream.ts'

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
  /**
   * How often to ask the service which saved voices still exist, erasing the audio of takes made with one that is
   * gone (takes/lineage.ts). Default 60 s; 0 turns the periodic check off.
   */
  voiceCheckIntervalMs?: number
  /** How long a consent request's link may be used (STUDIO_CONSENT_LINK_HOURS); default 72 hours. */
  consentLinkTtlMs?: number
  /** Failed consent-link attempts per address within a window; default 10 a minute. */
  consentLinkLimit?: SignInLimit
  /**
   * The master key wrapping every take's data key (base64, 32 bytes; `STUDIO_MASTER_KEY`): every instance on one
   * database needs the same. Default: `studio-master.key` in the data directory, made on first start.
   */
  masterKey?: string | undefined
  /** During a rotation, the keys replaced (`STUDIO_MASTER_KEY_PREVIOUS`): take keys they wrapped are wrapped again. */
  previousMasterKeys?: readonly string[] | undefined
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
    // Paths the router cannot read (bad percent-encoding, an id past the parameter limit), refused in the envelope.
    frameworkErrors: (error, _request, reply) => refuse(reply, invalidAddress(error.statusCode ?? 400)),
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
    const health = await callUpstream(upstream, '/health', { anonymous: true, timeoutMs: 2000 })
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
  const takes = await TakeStore.open(
    storage,
    studioSealerOf({ dataDir, masterKey: opts.masterKey, previousMasterKeys: opts.previousMasterKeys }),
  )
  const lineage = new VoiceLineage({
    takes,
    audit,
    upstream,
    log: app.log,
    ...(opts.voiceCheckIntervalMs !== undefined ? { checkIntervalMs: opts.voiceCheckIntervalMs } : {}),
  })
  lineage.start()
  app.addHook('onClose', () => lineage.stop())

  await registerUpstreamProxy(app, upstream, {
    authorize: authorizeUpstream,
    retry: opts.retry,
    // Consent and voice creations and deletions that succeeded go into the audit trail (audit/routes.ts).
    // A deletion also erases what was made with the voice or the consent's voices.
    onResponse: auditingOnResponse({
      store: audit,
      consentOfVoice: (voiceId) => lineage.consentOf(voiceId),
      afterDeletion: (kind, id, revoked, by) => lineage.afterDeletion(kind, id, revoked, by),
      voiceNotFound: (voiceId) => lineage.stillThere(voiceId, true),
    }),
  })
  // Registered after the proxy, as @fastify/websocket requires; the bridge's exact route wins over the proxy's wildcard.
  await app.register(websocket)
  const socketAuthorizer = authorizeSocket(hosts)
  registerWsBridge(app, '/v1/tts/realtime', upstream, socketAuthorizer)
  const transcripts = new TranscriptStore(storage, dataDir)
  const { adopted, swept } = await transcripts.adoptFiles()
  if (adopted + swept > 0) app.log.info({ adopted, swept }, 'transcript recordings moved into the database')
  registerWsBridge(app, '/v1/realtime', upstream, socketAuthorizer, liveBridgeOptions(upstream, transcripts))
  // Live transcription over WebRTC: the SDP exchange relayed with a minted secret; exact routes win over the proxy's.
  registerCallRoutes(app, upstream, hosts)
  registerTranscriptRoutes(app, transcripts, upstream)
  registerScriptRoutes(app, new ScriptStore(storage))
  registerTakeRoutes(app, takes, lineage)
  registerPronunciationRoutes(app, new PronunciationStore(storage))

  const hasApp = !!opts.staticDir && existsSync(join(opts.staticDir, 'index.html'))
  registerConsentRequestRoutes(app, {
    store: new ConsentRequestStore(storage),
    audit,
    upstream,
    hosts,
    ttlMs: opts.consentLinkTtlMs ?? 72 * 3600_000,
    limit: opts.consentLinkLimit ?? { attempts: 10, windowMs: 60_000 },
    ...(opts.redis ? { redis: opts.redis } : {}),
    ...(hasApp ? { sendApp: (reply) => reply.sendFile('index.html', { cacheControl: false }) } : {}),
  })
  if (hasApp) await app.register(fastifyStatic, { root: opts.staticDir as string, wildcard: false })
  // Client-side routes fall back to the app; unknown /api paths (and everything, without an app) are 404s.
  app.setNotFoundHandler((request, reply) =>
    hasApp && request.method === 'GET' && !request.url.startsWith('/api/')
      ? reply.sendFile('index.html')
      : refuse(reply, notFound()),
  )
  return app
}
