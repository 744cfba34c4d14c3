import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isStorageUnavailable, isValueRefused } from '../storage/index.ts'

/**
 * The studio backend's own answers that are not successes: `{ detail, param }`, never cached. (Answers relayed from
 * the speech service keep the service's `{ error: {…} }` shape; the browser's client reads both, src/api/http.ts.)
 */
export function refuse(reply: FastifyReply, status: number, detail: string, param: string | null = null) {
  // JSON whatever type a relayed answer had already set, so the refusal can always be sent.
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ detail, param })
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
 * says what was wrong in the `detail` shape and is logged at info; a database that cannot answer is a 503 with
 * Retry-After; anything else is a 500 that names nothing internal, logged as an error with its stack.
 */
export function studioErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode ?? 500
  if (clientWentAway(error)) {
    request.log.info({ code: error.code }, 'client went away')
    return reply.sent ? undefined : refuse(reply, 400, 'The request was cut short.')
  }
  if (status >= 400 && status < 500) {
    request.log.info({ code: error.code, status }, error.message)
    // A body refused unread leaves its bytes on the connection; closing it is cheaper than draining.
    if (status === 413) reply.header('connection', 'close')
    return refuse(reply, status, error.message)
  }
  if (isValueRefused(error)) {
    request.log.info({ code: error.code }, 'value refused by the database')
    return refuse(reply, 400, 'A value in this request cannot be stored.')
  }
  if (isStorageUnavailable(error)) {
    // PostgreSQL down or restarting: said plainly, retried by the browser after a moment (docs/deploy.md).
    request.log.error({ code: error.code, err: error.message }, 'studio database unavailable')
    return refuse(
      reply.header('retry-after', '5'),
      503,
      'The studio cannot reach its database. Try again shortly.',
    )
  }
  request.log.error({ err: error }, 'studio request failed')
  return refuse(reply, 500, 'The studio could not handle this request.')
}

export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler(studioErrorHandler)
}
