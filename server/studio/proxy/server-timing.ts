import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Server-Timing on proxied answers, so the browser can split a request's time between this backend and the service
 * (the page reads it from the request's resource timing; bench:studio prints the stages): `studio` is the time from
 * the request's arrival to the upstream request (session lookup, role check, body buffering), `upstream` the time
 * from there to the service's headers. The service's own entry (`service`) comes through beside them.
 */
const sent = new WeakMap<object, { at: number; studioMs: number }>()

/** Called as the request is handed to the upstream (the end of the proxy's preHandler). */
export function markUpstreamStart(request: FastifyRequest, reply: FastifyReply) {
  sent.set(request.raw, { at: performance.now(), studioMs: reply.elapsedTime })
}

/** The upstream answer's headers with this backend's entries added to its Server-Timing. */
export function withStudioTiming<H extends Record<string, unknown>>(
  headers: H,
  request?: { raw: object },
): H {
  const mark = request && sent.get(request.raw)
  if (!mark) return headers
  const ours = `studio;dur=${mark.studioMs.toFixed(1)}, upstream;dur=${(performance.now() - mark.at).toFixed(1)}`
  const theirs = headers['server-timing']
  return { ...headers, 'server-timing': typeof theirs === 'string' && theirs ? `${theirs}, ${ours}` : ours }
}
