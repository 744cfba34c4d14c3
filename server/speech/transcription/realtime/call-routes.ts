import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ASR_CONCURRENT_SESSIONS } from '../../../../schema/index.ts'
import { authenticate } from '../../access/auth.ts'
import type { ClientSecretStore } from '../../access/client-secret-store.ts'
import type { KeyStore } from '../../access/key-store.ts'
import { ApiError, badRequest, rateLimited } from '../../errors.ts'
import type { SlotPool } from '../../limits/slots.ts'
import { discardRest, malformedMultipart } from '../../multipart-form.ts'
import { applySessionConfig, defaultSettings, parseSessionConfig, SessionConfigError } from './stt-config.ts'

export interface CallRouteDeps {
  keys: KeyStore
  secrets: ClientSecretStore
  asrSlots: SlotPool
}

const MAX_SDP_BYTES = 64 * 1024

export const sessionRateLimited = (limit = ASR_CONCURRENT_SESSIONS) =>
  rateLimited({
    'x-ratelimit-limit-concurrent-sessions': String(limit),
    'x-ratelimit-remaining-concurrent-sessions': '0',
  })

/** The offer and the optional session configuration, from `application/sdp` or a multipart form. */
async function readOffer(request: FastifyRequest): Promise<{ sdp: string; session: unknown }> {
  if (request.isMultipart()) {
    let sdp: string | undefined
    let session: unknown
    try {
      for await (const part of request.parts({
        limits: { files: 0, fields: 2, fieldSize: MAX_SDP_BYTES },
      })) {
        if (part.type === 'file') throw badRequest('The call form takes text fields only: sdp and session.')
        if (part.fieldname === 'sdp') sdp = String(part.value)
        else if (part.fieldname === 'session') {
          try {
            session = JSON.parse(String(part.value))
          } catch {
            throw badRequest('session must be a JSON object.', 'session')
          }
        } else throw badRequest(`Unknown field ${JSON.stringify(part.fieldname)}.`, part.fieldname)
      }
    } catch (err) {
      // Refused: the rest of the body is dropped so the keep-alive connection goes on (multipart-form.ts).
      discardRest(request)
      throw malformedMultipart(err)
    }
    return { sdp: sdp ?? '', session }
  }
  return { sdp: typeof request.body === 'string' ? request.body : '', session: undefined }
}

/**
 * `POST /v1/realtime/calls` (contract 4.11, 7): WebRTC signalling. The service checks the offer, refuses diarization on
 * this transport and refuses at capacity, all before any media. It has no WebRTC media stack, so a call that passes
 * every check is answered 501 `webrtc_not_available` and no call is created (docs/transcription.md).
 */
export function callRoutes(app: FastifyInstance, deps: CallRouteDeps) {
  app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/sdp',
      { parseAs: 'string', bodyLimit: MAX_SDP_BYTES },
      (_req, body, done) => done(null, body),
    )
    scope.post('/v1/realtime/calls', async (request) => {
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
      if (!(await deps.asrSlots.available(principal.ownerId))) throw sessionRateLimited(deps.asrSlots.limit)
      throw new ApiError(
        501,
        'envelope',
        'This local service carries no WebRTC media; open a realtime transcription WebSocket (/v1/realtime) instead.',
        'webrtc_not_available',
        null,
        'server_error',
      )
    })
  })
}
