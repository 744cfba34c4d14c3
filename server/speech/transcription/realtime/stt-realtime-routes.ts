import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { TRANSCRIPTION_MODELS } from '../../../../schema/index.ts'
import { sttRealtimeQuerySchema } from '../../../../schema/service-routes.ts'
import { authenticate } from '../../access/auth.ts'
import type { ClientSecretStore } from '../../access/client-secret-store.ts'
import type { KeyStore } from '../../access/key-store.ts'
import { badRequest, invalidField, recognitionUnavailable, upgradeRequired } from '../../errors.ts'
import { detail, either, envelope, keyRefusals, noBody } from '../../route-docs.ts'
import { openSttSession, type SessionDeps } from './open-session.ts'
import { applySessionConfig, defaultSettings, SessionConfigError, type SttSettings } from './stt-config.ts'
import type { SessionSpeakerTracker } from './stt-session.ts'

export interface SttRealtimeDeps extends SessionDeps {
  keys: KeyStore
  secrets: ClientSecretStore
  /** Null when diarization is switched off in this deployment. */
  createTracker:
    | ((opts: { maxSpeakers: number }) => SessionSpeakerTracker | Promise<SessionSpeakerTracker>)
    | null
}

declare module 'fastify' {
  interface FastifyRequest {
    sttSettings: SttSettings
  }
}

export const STT_REALTIME_PATHS = ['/v1/realtime', '/v1/stt/realtime'] as const

/**
 * Everything that can be refused with an HTTP status is refused before the upgrade: key and permission, query, and an
 * engine that is not installed. An ephemeral credential's minted session configuration is applied here.
 */
async function admit(deps: SttRealtimeDeps, request: FastifyRequest): Promise<SttSettings> {
  // A plain GET would get the WebSocket plugin's bare 404; it gets the contract's shape like every other refusal.
  if (!request.ws) throw upgradeRequired()
  const principal = await authenticate(deps.keys, request, 'audio:transcribe')
  const query = request.query as Record<string, unknown>
  for (const [name, value] of Object.entries(query)) {
    if (name === 'intent') {
      if (value !== 'transcription')
        throw badRequest('intent must be transcription (the only session type here).', 'intent')
    } else if (name === 'model') {
      if (!(TRANSCRIPTION_MODELS as readonly unknown[]).includes(value)) {
        throw invalidField('model', `Realtime sessions transcribe with ${TRANSCRIPTION_MODELS.join(', ')}.`)
      }
    } else throw badRequest(`Unknown query parameter ${JSON.stringify(name)}.`, name)
  }
  if (!(await deps.recognizer.available())) {
    throw recognitionUnavailable('Speech recognition is not installed on this server.')
  }
  let settings = defaultSettings()
  const minted = principal.kind === 'ephemeral' ? await deps.secrets.sessionFor(principal.keyId) : null
  if (minted) {
    try {
      settings = applySessionConfig(settings, minted)
    } catch (err) {
      if (!(err instanceof SessionConfigError)) throw err
    }
  }
  return settings
}

const socketSchema = (operationId: string) => ({
  operationId,
  summary: 'WebSocket upgrade for a realtime transcription session (events: docs/transcription.md)',
  tags: ['transcription'],
  querystring: sttRealtimeQuerySchema,
  response: {
    101: noBody(
      'Switching protocols. At capacity the upgrade completes, an `error` event `rate_limit_exceeded` follows and the socket closes with 1000.',
    ),
    400: either('Unknown query parameter or value.'),
    ...keyRefusals('audio:transcribe'),
    426: detail('A plain GET, without the WebSocket upgrade. Header Upgrade: websocket.'),
    503: envelope('`recognition_unavailable`: PocketSphinx is not installed.'),
  },
})
const OPERATION_IDS: Record<(typeof STT_REALTIME_PATHS)[number], string> = {
  '/v1/realtime': 'realtimeTranscriptionSocket',
  '/v1/stt/realtime': 'sttRealtimeSocket',
}

/**
 * Realtime transcription over WebSocket, `/v1/realtime` and `/v1/stt/realtime` (contract 4.11, 6.3, 6.4, 8;
 * docs/transcription.md). A socket holds one of its organization's 5 ASR slots from admission until it closes; at
 * capacity the upgrade completes, an `error` event `rate_limit_exceeded` is sent and the socket closes with 1000.
 */
export function sttRealtimeRoutes(app: FastifyInstance, deps: SttRealtimeDeps) {
  for (const path of STT_REALTIME_PATHS) {
    app.get(
      path,
      {
        websocket: true,
        schema: socketSchema(OPERATION_IDS[path]),
        preValidation: async (request) => {
          request.sttSettings = await admit(deps, request)
        },
      },
      async (socket, request) => {
        // Messages that arrive while admission finishes are held, not lost.
        const early: Array<[Buffer, boolean]> = []
        const hold = (data: Buffer, isBinary: boolean) => early.push([data, isBinary])
        socket.on('message', hold)
        let gone = socket.readyState !== socket.OPEN
        socket.once('close', () => {
          gone = true
        })

        const opened = await openSttSession(deps, socket, {
          ownerId: request.principal.ownerId,
          settings: request.sttSettings,
          createTracker: deps.createTracker,
          log: request.log,
        })
        if (!opened) {
          socket.send(
            JSON.stringify({
              type: 'error',
              event_id: `event_${randomBytes(12).toString('hex')}`,
              error: {
                type: 'rate_limit_error',
                code: 'rate_limit_exceeded',
                message: `Too many concurrent transcription sessions and uploads for this organization (limit ${deps.asrSlots.limit}).`,
                param: null,
              },
            }),
          )
          socket.close(1000, 'rate_limit_exceeded')
          return
        }
        const { session, end } = opened
        socket.on('close', end)
        socket.on('error', end)
        if (gone) return end()
        try {
          await session.start()
        } catch (err) {
          // A client that left during start-up is not the service's failure (errors.ts, client went away).
          if (gone) request.log.info({ reason: (err as Error).message }, 'client went away')
          else request.log.error({ err }, 'realtime session could not start')
          socket.close(1011, 'session_start_failed')
          return end()
        }
        socket.off('message', hold)
        socket.on('message', (data: Buffer, isBinary: boolean) => session.receive(data, isBinary))
        for (const [data, isBinary] of early) session.receive(data, isBinary)
      },
    )
  }
}
