import { randomBytes } from 'node:crypto'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { TTS_IDLE_TIMEOUT_MS, TTS_SESSION_MS } from '../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../engine/index.ts'
import { ApiError, errorHandler, sendApiError } from './errors.ts'
import { buildOpenApiDocument } from './openapi.ts'
import { speechRoutes } from './routes/speech.ts'
import { ttsRealtimeRoutes } from './routes/tts-realtime.ts'
import { voiceCatalogRoutes } from './routes/voices.ts'
import { SlotPool } from './slots.ts'
import { openSpeechDb } from './store/db.ts'
import { KeyStore } from './store/keys.ts'

export interface SpeechServiceOptions {
  dataDir: string
  synthesizer?: Synthesizer
  logger?: FastifyServerOptions['logger']
  limits?: Partial<SpeechLimits>
}

export interface SpeechLimits {
  /** Concurrent generations per organization or legacy key (spec 8). */
  ttsPerOwner: number
  /** Second-generation requests that may wait in line per owner, and for how long, before 429 / 503. */
  ttsWaiters: number
  ttsWaitMs: number
  /** Text-input WebSocket: idle timeout and session duration (spec 8). */
  ttsIdleMs: number
  ttsSessionMs: number
  /** Redirect mode (4.1): at capacity, answer with a continuation URL; it waits up to `continuationWaitMs`. */
  redirectWhenBusy: boolean
  continuationWaitMs: number
  /** Speech request duration limit (spec 8). */
  speechRequestMs: number
}

const DEFAULT_LIMITS: SpeechLimits = {
  ttsPerOwner: 2,
  ttsWaiters: 2,
  ttsWaitMs: 8000,
  ttsIdleMs: TTS_IDLE_TIMEOUT_MS,
  ttsSessionMs: TTS_SESSION_MS,
  redirectWhenBusy: false,
  continuationWaitMs: 30_000,
  speechRequestMs: 30 * 60_000,
}
/** The largest WebSocket message of any socket (realtime transcription, spec 8); smaller limits are per route. */
const MAX_WS_MESSAGE_BYTES = 24 * 1024 * 1024

/** Deployment switches read from the environment (README, Configuration). */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<SpeechLimits> {
  return { redirectWhenBusy: env.SPEECH_REDIRECT_WHEN_BUSY === '1' }
}

export interface SpeechService {
  app: FastifyInstance
  keys: KeyStore
  synthesizer: Synthesizer
  ttsSlots: SlotPool
  close(): Promise<void>
}

/** The local speech service: the spec's HTTP API over the local engines, state in `dataDir`. */
export async function createSpeechService(opts: SpeechServiceOptions): Promise<SpeechService> {
  const db = openSpeechDb(opts.dataDir)
  const keys = new KeyStore(db)
  const synthesizer = opts.synthesizer ?? (await createEspeakSynthesizer())
  const limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const ttsSlots = new SlotPool(limits.ttsPerOwner, limits.ttsWaiters)
  const app = Fastify({
    logger: opts.logger ?? false,
    genReqId: () => `req_${randomBytes(12).toString('hex')}`,
    // Request ids are ours; a client-sent id header is not trusted.
    requestIdHeader: false,
    // Shutdown must not wait on streams whose clients stopped reading (Ctrl-C, tests).
    forceCloseConnections: true,
  })
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  // Fastify reads text/plain by default; the API takes only JSON and multipart, so plain text must be a 415.
  app.removeContentTypeParser('text/plain')
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler((request, reply) =>
    sendApiError(
      reply,
      new ApiError(404, 'detail', `No route for ${request.method} ${request.url.split('?')[0]}.`),
    ),
  )
  await app.register(websocket, { options: { maxPayload: MAX_WS_MESSAGE_BYTES } })
  const openApi = buildOpenApiDocument()
  app.get('/openapi.json', async () => openApi)
  app.get('/health', async () => ({ status: 'ok', engines: { synthesis: true } }))
  speechRoutes(app, {
    keys,
    synthesizer,
    ttsSlots,
    slotWaitMs: limits.ttsWaitMs,
    redirectWhenBusy: limits.redirectWhenBusy,
    continuationWaitMs: limits.continuationWaitMs,
    requestMs: limits.speechRequestMs,
  })
  voiceCatalogRoutes(app, { keys })
  ttsRealtimeRoutes(app, {
    keys,
    synthesizer,
    ttsSlots,
    idleMs: limits.ttsIdleMs,
    maxSessionMs: limits.ttsSessionMs,
  })
  app.addHook('onClose', async () => {
    if (!opts.synthesizer) await synthesizer.close()
    db.close()
  })
  return { app, keys, synthesizer, ttsSlots, close: () => app.close() }
}
