import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ASR_CONCURRENT_SESSIONS } from '../../../../schema/index.ts'
import {
  callFormSchema,
  callIdParamsSchema,
  sdpAnswerSchema,
  sdpOfferSchema,
} from '../../../../schema/service-routes.ts'
import { readMultipart } from '../../../multipart.ts'
import { authenticate } from '../../access/auth.ts'
import type { ClientSecretStore } from '../../access/client-secret-store.ts'
import type { KeyStore } from '../../access/key-store.ts'
import { ApiError, badRequest, rateLimited, recognitionUnavailable } from '../../errors.ts'
import { either, envelope, keyRefusals, noBody, retryAfter } from '../../route-docs.ts'
import { openSttSession, type SessionDeps } from './open-session.ts'
import { applySessionConfig, defaultSettings, parseSessionConfig, SessionConfigError } from './stt-config.ts'
import { type CallNetwork, DEFAULT_CALL_NETWORK, OfferRefusedError, WebRtcCall } from './webrtc-call.ts'

export interface CallRouteDeps extends SessionDeps {
  keys: KeyStore
  secrets: ClientSecretStore
  /** Where calls offer their media (host addresses, UDP ports) and how long a silent peer is waited for. */
  network?: CallNetwork
  /** Every call in progress on this instance, by id. */
  calls?: Map<string, LiveCall>
}

/** A call in progress: whose it is, and how to hang it up. */
export interface LiveCall {
  ownerId: string
  hangUp(): void
}

const callNotFound = () =>
  new ApiError(
    404,
    'envelope',
    'No call in progress with this id on this service for this key.',
    'call_not_found',
    'call_id',
  )

const MAX_SDP_BYTES = 64 * 1024

export const sessionRateLimited = (limit = ASR_CONCURRENT_SESSIONS) =>
  rateLimited({
    'x-ratelimit-limit-concurrent-sessions': String(limit),
    'x-ratelimit-remaining-concurrent-sessions': '0',
  })

/** The 429 of every route taking an ASR slot (uploads, sockets, calls). */
export const sessionsBusy = {
  ...envelope(
    '`rate_limit_exceeded`: 5 transcription uploads and realtime sessions per organization. Headers x-ratelimit-limit-concurrent-sessions: 5, x-ratelimit-remaining-concurrent-sessions: 0, Retry-After: 1.',
  ),
  headers: retryAfter,
}

const placeCallSchema = {
  operationId: 'createRealtimeCall',
  summary: 'A WebRTC call into a realtime transcription session (docs/transcription.md)',
  tags: ['transcription'],
  body: {
    content: {
      'application/sdp': { schema: sdpOfferSchema },
      'multipart/form-data': { schema: callFormSchema },
    },
  },
  response: {
    201: {
      description: 'The SDP answer; the call is at `Location`. Session events travel on the data channel.',
      content: { 'application/sdp': { schema: sdpAnswerSchema } },
      headers: { location: { description: 'The call, /v1/realtime/calls/{call_id}.' } },
    },
    400: either('`diarization_not_supported_on_transport`, or a bad SDP offer / session (`detail`).'),
    ...keyRefusals('audio:transcribe'),
    429: sessionsBusy,
    503: envelope('`recognition_unavailable`: PocketSphinx is not installed.'),
  },
}

const hangUpSchema = {
  operationId: 'hangUpRealtimeCall',
  summary: 'Hangs up a call of this key’s owner',
  tags: ['transcription'],
  params: callIdParamsSchema,
  response: {
    204: noBody('Hung up; its slot is free.'),
    ...keyRefusals('audio:transcribe'),
    404: envelope('`call_not_found`: no call in progress with this id for this key.'),
  },
}

/** The offer and the optional session configuration, from `application/sdp` or a multipart form. */
async function readOffer(request: FastifyRequest): Promise<{ sdp: string; session: unknown }> {
  if (request.isMultipart()) {
    const form = await readMultipart(request, {
      fields: ['sdp', 'session'],
      files: {},
      maxFieldBytes: MAX_SDP_BYTES,
    })
    const { sdp = '', session } = form.fields
    if (session === undefined) return { sdp, session: undefined }
    try {
      return { sdp, session: JSON.parse(session) }
    } catch {
      throw badRequest('session must be a JSON object.', 'session')
    }
  }
  return { sdp: typeof request.body === 'string' ? request.body : '', session: undefined }
}

/**
 * `POST /v1/realtime/calls` (contract 4.11, 7): a WebRTC call into a realtime transcription session. The offer, the
 * session configuration, diarization (refused on this transport) and capacity are checked before any media; the
 * answer (201, `application/sdp`, the call at `Location`) offers host candidates on the configured addresses only.
 * The call holds one of its organization's ASR slots until it ends (webrtc-call.ts says when);
 * `DELETE /v1/realtime/calls/{call_id}` hangs up.
 */
export function callRoutes(app: FastifyInstance, deps: CallRouteDeps) {
  const network = deps.network ?? DEFAULT_CALL_NETWORK
  const calls = deps.calls ?? new Map<string, LiveCall>()
  app.addHook('onClose', async () => {
    for (const call of calls.values()) call.hangUp()
  })
  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/sdp',
      { parseAs: 'string', bodyLimit: MAX_SDP_BYTES },
      (_req, body, done) => done(null, body),
    )
    scope.post('/v1/realtime/calls', { schema: placeCallSchema }, async (request, reply) => {
      const principal = await authenticate(deps.keys, request, 'audio:transcribe')
      const { sdp, session } = await readOffer(request)
      if (!/^v=0\r?\n/.test(sdp) || !/^m=audio /m.test(sdp)) {
        throw badRequest('sdp must be a WebRTC SDP offer (v=0 …) with an audio m-line.', 'sdp')
      }
      let settings = defaultSettings()
      try {
        const minted = principal.kind === 'ephemeral' ? await deps.secrets.sessionFor(principal.keyId) : null
        if (minted) settings = applySessionConfig(settings, minted)
        if (session !== undefined) settings = applySessionConfig(settings, parseSessionConfig(session))
      } catch (err) {
        if (err instanceof SessionConfigError) throw badRequest(err.message, err.param)
        throw err
      }
      if (settings.diarization?.enabled) {
        throw new ApiError(
          400,
          'envelope',
          'Speaker attribution is not available over WebRTC; use the realtime WebSocket (/v1/realtime) for diarization.',
          'diarization_not_supported_on_transport',
          'session.diarization',
        )
      }
      if (!(await deps.recognizer.available())) {
        throw recognitionUnavailable('Speech recognition is not installed on this server.')
      }
      const id = `rtc_${randomBytes(12).toString('hex')}`
      let call: WebRtcCall | null = null
      const early: string[] = []
      const transport = {
        send: (data: string) => (call ? call.send(data) : early.push(data)),
        close: () => call?.end('server'),
      }
      const opened = await openSttSession(deps, transport, {
        ownerId: principal.ownerId,
        settings,
        createTracker: null,
        log: request.log,
      })
      if (!opened) throw sessionRateLimited(deps.asrSlots.limit)
      const stt = opened.session
      let ended = false
      const end = (reason: string) => {
        if (ended) return
        ended = true
        opened.end()
        calls.delete(id)
        request.log.info({ call: id, reason }, 'call ended')
      }
      try {
        await stt.start()
        call = await WebRtcCall.answer(sdp, network, {
          audio: (samples, rate) => stt.receiveMedia(samples, rate),
          message: (data) => stt.receive(Buffer.from(data, 'utf8'), false),
          ended: end,
        })
      } catch (err) {
        end('refused')
        if (err instanceof OfferRefusedError) throw badRequest(err.message, 'sdp')
        throw err
      }
      for (const data of early) call.send(data)
      const answered = call
      calls.set(id, { ownerId: principal.ownerId, hangUp: () => answered.end('hang_up') })
      return reply
        .code(201)
        .header('content-type', 'application/sdp')
        .header('location', `/v1/realtime/calls/${id}`)
        .header('cache-control', 'no-store')
        .send(call.answer)
    })
    scope.delete('/v1/realtime/calls/:call_id', { schema: hangUpSchema }, async (request, reply) => {
      const principal = await authenticate(deps.keys, request, 'audio:transcribe')
      const call = calls.get((request.params as { call_id: string }).call_id)
      if (!call || call.ownerId !== principal.ownerId) throw callNotFound()
      call.hangUp()
      return reply.code(204).send()
    })
  })
}
