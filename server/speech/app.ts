import multipart from '@fastify/multipart'
import websocket from '@fastify/websocket'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { ASR_CONCURRENT_SESSIONS, TTS_IDLE_TIMEOUT_MS, TTS_SESSION_MS } from '../../schema/index.ts'
import { createDiarizer, type Diarizer } from '../engine/diarization/index.ts'
import { createSegmentedSpeakerTracker } from '../engine/diarization/online-segmented.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../engine/index.ts'
import {
  createPocketSphinxRecognizer,
  type PocketSphinxOptions,
  type Recognizer,
} from '../engine/recognition/index.ts'
import {
  createSpeakerEmbedder,
  DEFAULT_VERIFICATION_THRESHOLD,
  type SpeakerEmbedder,
  screenRecording,
} from '../engine/speaker/index.ts'
import { createStreamingVad } from '../engine/vad/index.ts'
import { accessPlugin } from './access/access-plugin.ts'
import { ClientSecretStore } from './access/client-secret-store.ts'
import { KeyStore } from './access/key-store.ts'
import { openSpeechStorage, pingDatabase } from './database.ts'
import {
  ApiError,
  clientErrorHandler,
  errorHandler,
  newRequestId,
  sendApiError,
  socketErrorHandler,
} from './errors.ts'
import { openSlotPools, type SharedLimitsOptions } from './limits/pools.ts'
import type { SlotPool } from './limits/slots.ts'
import { healthRouteSchema, registerOpenApi } from './openapi.ts'
import { ContinuationStore } from './synthesis/continuation-store.ts'
import { synthesisPlugin } from './synthesis/synthesis-plugin.ts'
import { warmUpSpeech } from './synthesis/warm-up.ts'
import { LocalTranscriptionJobs, type TranscriptionJobs } from './transcription/jobs.ts'
import type { SessionSpeakerTracker, SttSession } from './transcription/realtime/stt-session.ts'
import { type CallNetwork, DEFAULT_CALL_NETWORK } from './transcription/realtime/webrtc-call.ts'
import { SharedTranscriptionJobs } from './transcription/shared-jobs.ts'
import { transcriptionPlugin } from './transcription/transcription-plugin.ts'
import { VoiceService } from './voices/voice-service.ts'
import { sealerOf, VoiceStore } from './voices/voice-store.ts'
import { voicesPlugin } from './voices/voices-plugin.ts'

export interface SpeechServiceOptions {
  dataDir: string
  /** PostgreSQL instead of DATA_DIR/speech.db (`DATABASE_URL`; database.ts). */
  databaseUrl?: string | undefined
  /** The PostgreSQL schema of the service's tables (`SPEECH_DATABASE_SCHEMA`, default `speech`). */
  databaseSchema?: string | undefined
  synthesizer?: Synthesizer
  recognizer?: Recognizer
  /** Where the default recognizer finds PocketSphinx, and whether it streams (config.ts: POCKETSPHINX_*). */
  recognition?: PocketSphinxOptions
  /** Upload diarization (default: the engine's diarizer). A diarizer that throws is how `failed` is tested. */
  diarizer?: Diarizer
  /** Realtime speaker tracking, one tracker per session (default: the online tracker on the segmentation model). */
  speakerTracker?: (opts: { maxSpeakers: number }) => SessionSpeakerTracker | Promise<SessionSpeakerTracker>
  /** Deployment switch for diarization, uploads and realtime; default on (config.ts: SPEECH_DIARIZATION). */
  diarizationEnabled?: boolean
  embedder?: SpeakerEmbedder
  /** Overrides the engine's voice preparation version (tests of re-preparation). */
  preparationVersion?: string
  logger?: FastifyServerOptions['logger']
  limits?: Partial<SpeechLimits>
  /** Keep the concurrency limits in Redis, shared by every instance (`REDIS_URL`; limits/redis-slots.ts). */
  sharedLimits?: SharedLimitsOptions | undefined
  /**
   * Transcription jobs this instance runs at once from the queue every instance shares when both `sharedLimits` and
   * `databaseUrl` are given (transcription/shared-jobs.ts); 0 takes none. Default 2.
   */
  transcriptionWorkers?: number
  /**
   * The master key wrapping the data keys of consents and voices (base64, 32 bytes; `SPEECH_MASTER_KEY`): every
   * instance on one database needs the same. Default: `DATA_DIR/speech-master.key`, made on first start.
   */
  masterKey?: string | undefined
  /** Keys a rotation replaced, still able to unwrap until `npm run keys -- rewrap` has run (docs/security.md). */
  previousMasterKeys?: readonly string[]
  /** Where WebRTC calls offer their media and how long they wait for a silent peer (default: DEFAULT_CALL_NETWORK). */
  callNetwork?: Partial<CallNetwork>
}

export interface SpeechLimits {
  /** Concurrent generations per organization or legacy key (contract 8). */
  ttsPerOwner: number
  /** Second-generation requests that may wait in line per owner, and for how long, before 429 / 503. */
  ttsWaiters: number
  ttsWaitMs: number
  /** Text-input WebSocket: idle timeout and session duration (contract 8). */
  ttsIdleMs: number
  ttsSessionMs: number
  /** Redirect mode (4.1): at capacity, answer with a continuation URL; it waits up to `continuationWaitMs`. */
  redirectWhenBusy: boolean
  continuationWaitMs: number
  /** Speech request duration limit (contract 8). */
  speechRequestMs: number
  /** Concurrent transcription uploads and realtime transcription sessions per organization, combined (contract 8). */
  asrPerOwner: number
  /** The cloning queue (contract 7, 8): concurrent preparations, requests that may wait, and for how long. */
  cloningConcurrency: number
  cloningQueue: number
  cloningWaitMs: number
  /** Speaker verification threshold for consent-bound voices (cosine similarity; docs/voices-and-consents.md). */
  verificationThreshold: number
  /** How long a speech request waits for a saved voice's re-preparation before 503 (contract 3). */
  preparationDeadlineMs: number
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
  asrPerOwner: ASR_CONCURRENT_SESSIONS,
  cloningConcurrency: 1,
  cloningQueue: 8,
  cloningWaitMs: 120_000,
  verificationThreshold: DEFAULT_VERIFICATION_THRESHOLD,
  preparationDeadlineMs: 25_000,
}
/** The largest WebSocket message of any socket (realtime transcription, contract 8); smaller limits are per route. */
const MAX_WS_MESSAGE_BYTES = 24 * 1024 * 1024

export interface SpeechService {
  app: FastifyInstance
  keys: KeyStore
  voices: VoiceService
  synthesizer: Synthesizer
  ttsSlots: SlotPool
  /** Transcription uploads and realtime sessions, combined (contract 8). */
  asrSlots: SlotPool
  sttSessions: Set<SttSession>
  /**
   * Runs the synthesis pipeline on a few short lines so the first requests are as fast as later ones
   * (synthesis/warm-up.ts). The entry points call it once after listening; resolves when done, or at once when the
   * service closes.
   */
  warmUp(): Promise<void>
  close(): Promise<void>
}

/** The local speech service: the contract's HTTP API over the local engines, state in `dataDir`. */
export async function createSpeechService(opts: SpeechServiceOptions): Promise<SpeechService> {
  const storage = await openSpeechStorage({
    dataDir: opts.dataDir,
    databaseUrl: opts.databaseUrl,
    schema: opts.databaseSchema,
  })
  const keys = new KeyStore(storage)
  // Expired ephemeral keys are of no use to anyone: gone at start-up, and whenever another is minted
  // (access/key-store.ts).
  await keys.deleteExpiredEphemeral()
  const synthesizer = opts.synthesizer ?? (await createEspeakSynthesizer())
  const limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const pools = await openSlotPools(limits, opts.sharedLimits)
  const ttsSlots = pools.tts
  const asrSlots = pools.asr
  const sttSessions = new Set<SttSession>()
  const diarizationEnabled = opts.diarizationEnabled ?? true
  const diarizer = opts.diarizer ?? createDiarizer()
  /** Switched on, and its model present and intact: what health and minted sessions report. */
  const diarizationAvailable = async () => diarizationEnabled && ((await diarizer.available?.()) ?? true)
  const speakerTracker = opts.speakerTracker ?? createSegmentedSpeakerTracker
  const recognizer = opts.recognizer ?? createPocketSphinxRecognizer(opts.recognition)
  const voices = new VoiceService({
    store: await VoiceStore.open(storage, opts.dataDir, sealerOf(opts)),
    synthesizer,
    recognizer,
    embedder: opts.embedder ?? createSpeakerEmbedder(),
    screen: screenRecording,
    verificationThreshold: limits.verificationThreshold,
    cloning: pools.cloning,
    cloningWaitMs: limits.cloningWaitMs,
    preparationVersion: opts.preparationVersion,
    preparationDeadlineMs: limits.preparationDeadlineMs,
  })
  const app = Fastify({
    logger: opts.logger ?? false,
    genReqId: newRequestId,
    // Request ids are ours; a client-sent id header is not trusted.
    requestIdHeader: false,
    // Every 4xx in the contract's shape, also the router's own (a bad % escape, an over-long path segment) and Node's
    // (a request that is not valid HTTP).
    frameworkErrors: (error, request, reply) => {
      errorHandler(error, request, reply)
    },
    clientErrorHandler,
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
  await app.register(websocket, {
    options: { maxPayload: MAX_WS_MESSAGE_BYTES },
    errorHandler: (error, socket, request) => socketErrorHandler(error, socket, request),
  })
  // Multipart routes (voices, consents, transcriptions, one-request cloning) set their own size limits per request.
  await app.register(multipart)
  // Before any route: the document is made from the routes registered after it.
  await registerOpenApi(app)
  // A database that does not answer makes the instance unhealthy (503), so a load balancer sends work elsewhere.
  app.get('/health', { schema: healthRouteSchema }, async (_request, reply) => {
    const [database, recognition, limitStore, diarization] = await Promise.all([
      pingDatabase(storage.db),
      recognizer.available(),
      pools.health(),
      // Switched on and its model present and intact (a missing or damaged file makes uploads say `failed`).
      diarizationAvailable(),
    ])
    // Without its shared limits (Redis) the instance refuses new work with 503, so it is unhealthy too.
    const healthy = database.reachable && limitStore.reachable
    return reply
      .code(healthy ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        status: healthy ? 'ok' : 'unavailable',
        limits: limitStore,
        engines: { synthesis: true, recognition, diarization },
        database: {
          backend: storage.dialect,
          reachable: database.reachable,
          latency_ms: database.latencyMs,
        },
      })
  })
  // The features, each a plugin registering its routes (synthesis/, voices/, transcription/, access/).
  await app.register(synthesisPlugin, {
    keys,
    synthesizer,
    voices,
    ttsSlots,
    slotWaitMs: limits.ttsWaitMs,
    redirectWhenBusy: limits.redirectWhenBusy,
    continuations: new ContinuationStore(storage),
    continuationWaitMs: limits.continuationWaitMs,
    requestMs: limits.speechRequestMs,
    idleMs: limits.ttsIdleMs,
    maxSessionMs: limits.ttsSessionMs,
  })
  await app.register(voicesPlugin, { keys, voices })
  const secrets = new ClientSecretStore(storage, keys)
  const engines = { recognizer, diarizer: diarizationEnabled ? diarizer : null }
  // With Redis and PostgreSQL shared by every instance, an upload is a job any of them may run (docs/deploy.md).
  const jobs: TranscriptionJobs =
    opts.sharedLimits && storage.dialect === 'postgres'
      ? await SharedTranscriptionJobs.open({
          url: opts.sharedLimits.url,
          prefix: opts.sharedLimits.prefix,
          heartbeatTtlMs: opts.sharedLimits.leaseTtlMs,
          workers: opts.transcriptionWorkers ?? 2,
          storage,
          engines,
          log: app.log,
        })
      : new LocalTranscriptionJobs(engines)
  await app.register(transcriptionPlugin, {
    keys,
    secrets,
    diarizationEnabled,
    asrSlots,
    jobs,
    recognizer,
    createVad: createStreamingVad,
    createTracker: diarizationEnabled ? speakerTracker : null,
    sessions: sttSessions,
    network: { ...DEFAULT_CALL_NETWORK, ...opts.callNetwork },
  })
  await app.register(accessPlugin, { keys, secrets, diarizationAvailable })
  const closing = new AbortController()
  app.addHook('onClose', async () => {
    closing.abort()
    for (const session of sttSessions) session.dispose()
    await jobs.close()
    if (!opts.synthesizer) await synthesizer.close()
    if (!opts.recognizer) await recognizer.close()
    await storage.close()
    await pools.close()
  })
  return {
    app,
    keys,
    voices,
    synthesizer,
    ttsSlots,
    asrSlots,
    sttSessions,
    warmUp: () => warmUpSpeech(synthesizer, voices, closing.signal),
    close: () => app.close(),
  }
}
