import type { FastifyInstance } from 'fastify'
import type { z } from 'zod'
import {
  CLIENT_SECRET_TTL,
  type ClientSecretResponse,
  clientSecretRequestSchema,
  clientSecretResponseSchema,
} from '../../../schema/index.ts'
import { ApiError, badRequest } from '../errors.ts'
import { detail, json, keyRefusals } from '../route-docs.ts'
import {
  applySessionConfig,
  configIssue,
  defaultSettings,
  SessionConfigError,
  sessionObject,
} from '../transcription/realtime/stt-config.ts'
import { authenticate } from './auth.ts'
import type { ClientSecretStore } from './client-secret-store.ts'
import type { KeyStore } from './key-store.ts'

export interface ClientSecretDeps {
  keys: KeyStore
  secrets: ClientSecretStore
  /** Diarization switched on and its model loadable: a minted session reports `active`, else `unavailable`. */
  diarizationAvailable(): Promise<boolean>
}

const MAX_BODY_BYTES = 64 * 1024

export const durableKeyRequired = (what: string) =>
  new ApiError(
    403,
    'envelope',
    `${what} needs a durable API key; ephemeral credentials cannot do it.`,
    'durable_api_key_required',
    null,
    'permission_error',
  )

const mintSchema = {
  operationId: 'createClientSecret',
  summary: 'Mint a short-lived ek_ credential for one realtime transcription session',
  tags: ['transcription'],
  body: clientSecretRequestSchema,
  bodyOptional: true,
  response: {
    200: json(
      clientSecretResponseSchema,
      'The ek_ value, its expiry (Unix seconds) and the session it opens.',
    ),
    400: detail('Unknown or mistyped field (param = its path).'),
    ...keyRefusals('audio:transcribe', ', or `durable_api_key_required` for an ek_ credential'),
  },
}

/**
 * `POST /v1/realtime/client_secrets` (contract 4.12, 5): an organization or legacy key with `audio:transcribe` mints a
 * short-lived `ek_` credential for a browser. The body's session configuration (diarization included) is stored with
 * it and applied when a realtime socket opens with the credential.
 */
export function clientSecretRoutes(app: FastifyInstance, deps: ClientSecretDeps) {
  app.post(
    '/v1/realtime/client_secrets',
    { bodyLimit: MAX_BODY_BYTES, schema: mintSchema },
    async (request, reply) => {
      const principal = await authenticate(deps.keys, request, 'audio:transcribe')
      if (principal.kind === 'ephemeral') throw durableKeyRequired('Minting a client secret')
      const parsed = clientSecretRequestSchema.safeParse(request.body ?? {})
      if (!parsed.success) {
        const err = configIssue(parsed.error.issues[0] as z.core.$ZodIssue, '')
        throw badRequest(err.message, err.param)
      }
      const session = parsed.data.session ?? {}
      let settings: ReturnType<typeof defaultSettings>
      try {
        settings = applySessionConfig(defaultSettings(), session)
      } catch (err) {
        if (err instanceof SessionConfigError) throw badRequest(err.message, err.param)
        throw err
      }
      const ttl = parsed.data.expires_after?.seconds ?? CLIENT_SECRET_TTL.default
      const minted = await deps.secrets.mint(principal, session, ttl)
      const body: ClientSecretResponse = {
        value: minted.value,
        expires_at: minted.expiresAt,
        session: sessionObject(settings, (await deps.diarizationAvailable()) ? 'active' : 'unavailable'),
      }
      return reply.header('cache-control', 'no-store').send(body)
    },
  )
}
