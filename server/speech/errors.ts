import { randomBytes } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiErrorBody } from '../../schema/index.ts'
import { FormRefusal } from '../multipart.ts'
import { isStorageUnavailable, isValueRefused } from '../storage/index.ts'
import { clientGone } from './limits/lease.ts'

/** Request ids are ours (`req_` and 24 hex digits); a client-sent id header is not trusted. */
export const newRequestId = () => `req_${randomBytes(12).toString('hex')}`

/**
 * Errors in the two shapes of contract 7. An `envelope` error becomes `{error: {...}, request_id}`; a
 * `detail` error (other parameter validation) becomes `{detail, param, request_id}`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly shape: 'envelope' | 'detail',
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly type: string = 'invalid_request_error',
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  body(requestId: string): ApiErrorBody {
    return this.shape === 'envelope'
      ? {
          error: { message: this.message, type: this.type, param: this.param, code: this.code },
          request_id: requestId,
        }
      : { detail: this.message, param: this.param, request_id: requestId }
  }
}

export const invalidField = (param: string, message: string) =>
  new ApiError(400, 'envelope', message, 'invalid_request_error', param)

export const badRequest = (message: string, param: string | null = null) =>
  new ApiError(400, 'detail', message, null, param)

export const missingKey = () =>
  new ApiError(
    401,
    'envelope',
    'No API key was provided. Send it as "Authorization: Bearer <API_KEY>".',
    'missing_api_key',
    null,
    'authentication_error',
  )

export const invalidKey = () =>
  new ApiError(
    401,
    'envelope',
    'The API key is not valid, has been revoked or has expired.',
    'invalid_api_key',
    null,
    'authentication_error',
  )

export const missingPermission = (permission: string) =>
  new ApiError(
    403,
    'envelope',
    `This API key lacks the ${permission} permission.`,
    'insufficient_permissions',
    null,
    'permission_error',
  )

export const voiceNotFound = () =>
  new ApiError(
    404,
    'envelope',
    'The voice does not exist or is not available to this key.',
    'voice_not_found',
    'voice',
  )

export const consentNotFound = () =>
  new ApiError(
    404,
    'envelope',
    'The consent does not exist or is not available to this key.',
    'consent_not_found',
    'consent',
  )

/** Contract 5.4: ephemeral credentials never manage voices or consents (docs/api.md, "Voices and consents"). */
export const durableKeyRequired = (what: string, param: string | null = null) =>
  new ApiError(
    403,
    'envelope',
    `${what} needs a durable API key; ephemeral credentials cannot use it.`,
    'durable_api_key_required',
    param,
    'permission_error',
  )

/** An upload that cannot serve as a consent recording or voice sample, with the reason in `code`. */
export const unusableAudio = (code: string, param: string, message: string) =>
  new ApiError(400, 'envelope', message, code, param)

export const customVoiceBusy = () =>
  new ApiError(
    429,
    'envelope',
    'The voice cloning queue is full. Retry later with backoff.',
    'custom_voice_creation_busy',
    null,
    'rate_limit_error',
    { 'retry-after': '5' },
  )

export const recognitionUnavailable = (message: string) =>
  new ApiError(503, 'envelope', message, 'recognition_unavailable', null, 'server_error')

export const rateLimited = (headers: Record<string, string>) =>
  new ApiError(
    429,
    'envelope',
    'Too many concurrent requests for this organization. Retry after the Retry-After delay.',
    'rate_limit_exceeded',
    null,
    'rate_limit_error',
    { ...headers, 'retry-after': '1' },
  )

export const noGenerationSlot = () =>
  new ApiError(
    503,
    'envelope',
    'No generation slot became free in time. Retry after the Retry-After delay.',
    'service_unavailable',
    null,
    'server_error',
    { 'retry-after': '1' },
  )

export const databaseUnavailable = () =>
  new ApiError(
    503,
    'envelope',
    'The service cannot reach its database. Retry after the Retry-After delay.',
    'service_unavailable',
    null,
    'server_error',
    { 'retry-after': '5' },
  )

/** A plain request to a WebSocket route; the plugin's own answer would be a bare 404 without a body. */
export const upgradeRequired = () =>
  new ApiError(
    426,
    'detail',
    'This is a WebSocket route: open it with an upgrade request.',
    null,
    null,
    undefined,
    {
      upgrade: 'websocket',
    },
  )

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  return (
    reply
      .code(err.status)
      .headers(err.headers)
      .header('cache-control', 'no-store')
      // Set again: a route may have named an audio type before it failed, and the request-id hook does not run for
      // the framework's own errors (a bad URL).
      .header('content-type', 'application/json; charset=utf-8')
      .header('x-request-id', String(reply.request.id))
      .send(err.body(String(reply.request.id)))
  )
}

/**
 * Errors of a request whose client has gone — "aborted", "Premature close", an AbortError from a stopped synthesis,
 * a body cut short — are the client's doing, not the service's: logged once at info, without a stack, so real errors
 * stand out. Nothing can be answered; the reply is sent only to finish the request's lifecycle.
 */
function clientWentAway(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  request.log.info(
    { code: typeof error.code === 'string' ? error.code : error.name, reason: error.message },
    'client went away',
  )
  const status = error instanceof ApiError ? error.status : 499
  return sendApiError(reply, new ApiError(status, 'detail', 'The client closed the connection.'))
}

/** Maps Fastify's own errors (body too large, bad JSON, wrong content type) into the contract's shapes. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (clientGone(reply.raw)) return clientWentAway(error, request, reply)
  if (error instanceof ApiError) return sendApiError(reply, error)
  // A form refused by the shared reader, in the service's parameter shape (contract 7).
  if (error instanceof FormRefusal)
    return sendApiError(reply, new ApiError(error.status, 'detail', error.message, null, error.param))
  // A database that cannot answer now (down, restarting, out of connections) is no verdict on the request: 503, retry.
  if (isStorageUnavailable(error)) {
    request.log.warn({ code: error.code, reason: error.message }, 'database unavailable')
    return sendApiError(reply, databaseUnavailable())
  }
  // A value the database itself refused (PostgreSQL: out of range, a NUL in text) came with the request.
  if (isValueRefused(error))
    return sendApiError(reply, badRequest('A value of the request cannot be stored as given.'))
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendApiError(
        reply,
        new ApiError(413, 'detail', 'The request body is larger than the limit for this route.'),
      )
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return sendApiError(
        reply,
        new ApiError(
          415,
          'detail',
          'Unsupported content type: send application/json or multipart/form-data.',
        ),
      )
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return sendApiError(reply, badRequest('The request body is not valid JSON.'))
    // The router's own refusals (frameworkErrors in app.ts): a path that does not decode, an over-long segment.
    case 'FST_ERR_BAD_URL':
      return sendApiError(reply, badRequest('The request path is not a valid URL (a malformed % escape).'))
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendApiError(reply, new ApiError(414, 'detail', 'A path segment of the request is too long.'))
  }
  // Any other client error keeps its status, in the contract's shape.
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return sendApiError(reply, new ApiError(error.statusCode, 'detail', error.message))
  }
  request.log.error({ err: error }, 'unhandled error')
  return sendApiError(
    reply,
    new ApiError(500, 'envelope', 'Internal error.', 'internal_error', null, 'server_error'),
  )
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time.'],
  HPE_HEADER_OVERFLOW: [431, 'The request headers are too large.'],
}

/**
 * Requests Node cannot even parse (a broken request line or header, headers too large, too slow) never reach a route;
 * their 4xx comes in the contract's shape like every other, under a request id of its own.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'The request is not valid HTTP.']
  const requestId = newRequestId()
  const body = JSON.stringify(new ApiError(status, 'detail', message).body(requestId))
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nx-request-id: ${requestId}\r\n` +
        `connection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

/**
 * An error thrown once a WebSocket is open (the shared limits or the database unreachable while a session starts):
 * HTTP answers are no longer possible, so the client is told in the socket's own error event, in the contract's shape,
 * and the socket closes — 1013 "try again later" for a 503, 1011 for anything else (whose detail stays in the log).
 */
export function socketErrorHandler(
  error: Error,
  socket: { readyState: number; send(data: string): void; close(code: number, reason: string): void },
  request: FastifyRequest,
) {
  const known =
    error instanceof ApiError ? error : isStorageUnavailable(error) ? databaseUnavailable() : undefined
  if (known) request.log.warn({ code: known.code, reason: known.message }, 'socket refused')
  else request.log.error({ err: error }, 'socket handler failed')
  if (socket.readyState !== 1) return // closed or closing already: nobody to tell
  socket.send(
    JSON.stringify({
      type: 'error',
      event_id: `event_${randomBytes(12).toString('hex')}`,
      error: {
        type: known?.type ?? 'server_error',
        code: known?.code ?? 'internal_error',
        message: known?.message ?? 'The service could not run this session.',
        param: known?.param ?? null,
      },
    }),
  )
  socket.close(known?.status === 503 ? 1013 : 1011, known?.code ?? 'internal_error')
}
