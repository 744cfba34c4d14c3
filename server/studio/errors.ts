import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import type { ErrorEnvelope } from '../../schema/index.ts'
import { FormRefusal } from '../multipart.ts'
import { isStorageUnavailable, isValueRefused } from '../storage/index.ts'

/**
 * The studio backend's one error language: every answer of its own that is not a success is one of the refusals
 * below, sent in the contract's envelope (contract 7.1, schema/errors.ts) — `{ error: { message, type, param, code },
 * request_id }` — never cached. Answers relayed from the speech service keep the service's own shapes. The codes are
 * listed in docs/api.md ("The studio backend's refusals"); the browser explains each once (src/api/error-text.ts).
 */
export interface Refusal {
  status: number
  message: string
  type:
    | 'authentication_error'
    | 'permission_error'
    | 'invalid_request_error'
    | 'rate_limit_error'
    | 'server_error'
  code: string
  param: string | null
  /** Seconds before trying again is worth it: sent as Retry-After. */
  retryAfter?: number
  /** What the answer carries beside the error: a 409's version saved meanwhile. */
  extra?: Record<string, unknown>
}

const refusal = (
  status: number,
  type: Refusal['type'],
  code: string,
  message: string,
  param: string | null = null,
): Refusal => ({ status, type, code, message, param })

// Who is asking.
export const notSignedIn = () => refusal(401, 'authentication_error', 'not_signed_in', 'Not signed in.')
export const wrongCredentials = () =>
  refusal(401, 'authentication_error', 'wrong_credentials', 'Wrong name or password.')
export const forbiddenForRole = (message: string) =>
  refusal(403, 'permission_error', 'forbidden_for_role', message)
export const csrfRefused = () =>
  refusal(403, 'permission_error', 'csrf_refused', 'Missing or invalid CSRF token.')
export const originRefused = (message = 'Cross-origin socket refused.') =>
  refusal(403, 'permission_error', 'origin_refused', message)
/** 421 Misdirected Request: this server is not configured to answer for that name. */
export const hostRefused = () =>
  refusal(
    421,
    'invalid_request_error',
    'host_refused',
    'This studio answers only at its own address (a loopback name such as 127.0.0.1).',
  )
export const rateLimited = (retryAfter: number) => ({
  ...refusal(429, 'rate_limit_error', 'rate_limited', 'Too many attempts. Wait a minute, then try again.'),
  retryAfter,
})
/** Sign-in cannot go ahead now: its counter did not answer, or too many passwords are being checked at once. */
export const signInUnavailable = (message: string, retryAfter: number) => ({
  ...refusal(503, 'server_error', 'sign_in_unavailable', message),
  retryAfter,
})

// What was asked.
export const invalidBody = (param: string | null, message: string) =>
  refusal(400, 'invalid_request_error', 'invalid_body', message, param)
export const invalidAddress = (status = 400) =>
  refusal(status, 'invalid_request_error', 'invalid_address', 'The address of this request is not valid.')
export const notFound = (message = 'Not found.') =>
  refusal(404, 'invalid_request_error', 'not_found', message)
export const notForwarded = (method: string, path: string) =>
  refusal(404, 'invalid_request_error', 'not_forwarded', `The studio does not forward ${method} ${path}.`)
/** 409: what is kept now does not allow it (a revision saved meanwhile carries the saved version in `extra`). */
export const conflict = (message: string, param: string | null = null, extra?: Record<string, unknown>) => ({
  ...refusal(409, 'invalid_request_error', 'conflict', message, param),
  ...(extra ? { extra } : {}),
})
/** 410: a take's audio was erased because the saved voice it was made with, or its consent, was revoked. */
export const audioErased = (message: string) => refusal(410, 'invalid_request_error', 'audio_erased', message)
/**
 * 410: a consent link that cannot be used — used, expired, withdrawn, or never made: one answer for all, so a
 * guess learns nothing (consent-requests/routes.ts).
 */
export const consentLinkUnusable = () =>
  refusal(
    410,
    'invalid_request_error',
    'consent_link_unusable',
    'This consent link cannot be used. Ask the person who sent it for a new one.',
  )
export const tooLarge = (message: string, param: string | null = null) =>
  refusal(413, 'invalid_request_error', 'too_large', message, param)
export const unsupportedMediaType = (message: string) =>
  refusal(415, 'invalid_request_error', 'unsupported_media_type', message)
export const websocketRequired = () =>
  refusal(
    426,
    'invalid_request_error',
    'websocket_required',
    'This address takes WebSocket connections only.',
  )
export const requestCutShort = () =>
  refusal(400, 'invalid_request_error', 'request_cut_short', 'The request was cut short.')
export const valueNotStorable = () =>
  refusal(400, 'invalid_request_error', 'value_not_storable', 'A value in this request cannot be stored.')
/** A 4xx thrown while the request was read (a body too large, malformed JSON), in its status and words. */
export function unreadableRequest(status: number, message: string): Refusal {
  if (status === 413) return tooLarge(message)
  if (status === 415) return unsupportedMediaType(message)
  return refusal(status, 'invalid_request_error', 'invalid_request', message)
}

// The studio's own trouble.
export const upstreamUnreachable = () =>
  refusal(502, 'server_error', 'upstream_unreachable', 'The speech service could not be reached.')
export const databaseUnavailable = () => ({
  ...refusal(
    503,
    'server_error',
    'database_unavailable',
    'The studio cannot reach its database. Try again shortly.',
  ),
  retryAfter: 5,
})
export const internalError = (message = 'The studio could not handle this request.') =>
  refusal(500, 'server_error', 'internal_error', message)

/** Sends a refusal in the envelope: JSON whatever type a relayed answer had already set, so it can always be sent. */
export function refuse(reply: FastifyReply, r: Refusal) {
  if (r.retryAfter !== undefined) reply.header('retry-after', String(r.retryAfter))
  const body: ErrorEnvelope & Record<string, unknown> = {
    error: { message: r.message, type: r.type, param: r.param, code: r.code },
    request_id: String(reply.request.id),
    ...r.extra,
  }
  return reply
    .code(r.status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(body)
}

/** Codes of a client that went away mid-request: its business, not the server's, so not logged as errors. */
// UND_ERR_ABORTED: the proxy's upstream body, destroyed because the browser left mid-stream.
const CLIENT_GONE = new Set([
  'ECONNRESET',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ECONNABORTED',
  'EPIPE',
  'UND_ERR_ABORTED',
])

export function clientWentAway(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null
  return !!e && (CLIENT_GONE.has(e.code ?? '') || e.message === 'aborted' || e.message === 'Premature close')
}

/**
 * Every error thrown in a route or hook ends here, once: a 4xx (a body too large, malformed JSON, a body cut short)
 * says what was wrong and is logged at info; a database that cannot answer is a 503 with Retry-After; anything else
 * is a 500 that names nothing internal (or `internal`'s words), logged as an error with its stack.
 */
export function studioErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  internal: Refusal = internalError(),
) {
  const status = error.statusCode ?? 500
  if (error instanceof FormRefusal) {
    request.log.info({ status: error.status, param: error.param }, error.message)
    return refuse(reply, formRefused(error))
  }
  if (clientWentAway(error)) {
    request.log.info({ code: error.code }, 'client went away')
    return reply.sent ? undefined : refuse(reply, requestCutShort())
  }
  if (status >= 400 && status < 500) {
    request.log.info({ code: error.code, status }, error.message)
    // A body refused unread leaves its bytes on the connection; closing it is cheaper than draining.
    if (status === 413) reply.header('connection', 'close')
    return refuse(reply, unreadableRequest(status, error.message))
  }
  if (isValueRefused(error)) {
    request.log.info({ code: error.code }, 'value refused by the database')
    return refuse(reply, valueNotStorable())
  }
  if (isStorageUnavailable(error)) {
    // PostgreSQL down or restarting: said plainly, retried by the browser after a moment (docs/deploy.md).
    request.log.error({ code: error.code, err: error.message }, 'studio database unavailable')
    return refuse(reply, databaseUnavailable())
  }
  request.log.error({ err: error }, 'studio request failed')
  return refuse(reply, internal)
}

/** A form the shared reader (server/multipart.ts) refused, in the studio's words for the same three cases. */
export function formRefused(error: FormRefusal): Refusal {
  if (error.status === 415) return unsupportedMediaType(error.message)
  if (error.status === 413) return tooLarge(error.message, error.param)
  return invalidBody(error.param, error.message)
}

/**
 * A body its schema refused, as "Invalid <what>: <field>: <why>." naming the first issue's field (an unknown field by
 * its key, which zod reports apart from the path); `prefix` is where the body sits in the request, if not at its root.
 */
export function refuseInvalid(reply: FastifyReply, what: string, error: z.ZodError, prefix = '') {
  const issue = error.issues[0]
  const path = issue?.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue?.path
  const param = [prefix, ...(path ?? [])].filter((p) => p !== '').join('.') || null
  const message = issue?.message ?? 'bad body'
  return refuse(reply, invalidBody(param, `Invalid ${what}: ${param ? `${param}: ` : ''}${message}.`))
}

/**
 * A route scope's error handler: the studio's own (above), in the scope's words for a body over its limit and for a
 * failure of its own.
 */
export function scopeErrorHandler(words: { tooLarge?: string; internal: string }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    error.statusCode === 413 && words.tooLarge !== undefined
      ? refuse(reply.header('connection', 'close'), tooLarge(words.tooLarge))
      : studioErrorHandler(error, request, reply, internalError(words.internal))
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => studioErrorHandler(error, request, reply))
}
