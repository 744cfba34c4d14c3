import type { FastifyReply, FastifyRequest } from 'fastify'
import { Agent, DecoratorHandler, type Dispatcher } from 'undici'

/**
 * The browser leaving ends the proxied request upstream too. The proxy (@fastify/reply-from on undici) passes no abort
 * signal upstream: once a body has been sent, a browser that cancels — "Cancel" on a voice save waiting for the
 * service's cloning slot, a closed tab during a long transcription — would leave the service working, holding its
 * slot and possibly creating the voice the user cancelled. So each proxied request carries a private header naming
 * it; the dispatcher below strips the header, and when that request's response closes before it finished (the
 * client left), aborts the upstream request: the service sees its client go and stops, as for a direct client.
 */
const HEADER = 'x-studio-proxied-request'

/** Aborters of the upstream requests in flight, by the studio request id of the browser request they serve. */
const inFlight = new Map<string, () => void>()
/** Browser requests whose client has gone, kept until their upstream request starts (or the response closes). */
const gone = new Set<string>()

/**
 * Watches a proxied request's client (from the proxy's preHandler, where the reply is at hand): if its response closes
 * before it finished — the client left — its upstream request is aborted, or is aborted as it starts.
 */
export function abortUpstreamWhenClientLeaves(request: FastifyRequest, reply: FastifyReply) {
  const id = String(request.id)
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) {
      const abort = inFlight.get(id)
      if (abort) abort()
      else {
        gone.add(id)
        // The upstream request may never start (refused before it); the mark is dropped soon after.
        setTimeout(() => gone.delete(id), 60_000).unref()
      }
    }
    inFlight.delete(id)
  })
}

/** The headers for the upstream request (in the proxy's `rewriteRequestHeaders`), marked with the request's id. */
export function markProxied(request: { id: string }, headers: Record<string, unknown>) {
  return { ...headers, [HEADER]: String(request.id) }
}

interface ForwardingHandler extends Dispatcher.DispatchHandler {
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void
  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Record<string, string | string[] | undefined>,
  ): void
  onResponseError(controller: Dispatcher.DispatchController, error: Error): void
}
/**
 * undici's DecoratorHandler forwards every callback (adapting the proxy's handler, written to undici's older handler
 * interface); its type declarations omit the methods it has, hence this view of it.
 */
const Forwarding = DecoratorHandler as unknown as new (
  handler: Dispatcher.DispatchHandler,
) => ForwardingHandler

class AbortOnLeave extends Forwarding {
  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly id: string,
  ) {
    super(handler)
  }

  override onRequestStart(controller: Dispatcher.DispatchController, context: unknown) {
    if (gone.delete(this.id)) controller.abort(new Error('the client left'))
    else inFlight.set(this.id, () => controller.abort(new Error('the client left')))
    super.onRequestStart(controller, context)
  }

  override onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Record<string, string | string[] | undefined>,
  ) {
    inFlight.delete(this.id)
    super.onResponseEnd(controller, trailers)
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error) {
    inFlight.delete(this.id)
    super.onResponseError(controller, error)
  }
}

/** The proxy's dispatcher: an undici agent whose requests marked by `markProxied` end when their client leaves. */
export function abortingDispatcher(): Dispatcher {
  return new Agent().compose((dispatch) => (opts, handler) => {
    const headers = opts.headers as Record<string, string | string[] | undefined> | null | undefined
    const id = headers && !Array.isArray(headers) ? headers[HEADER] : undefined
    if (typeof id !== 'string') return dispatch(opts, handler)
    const { [HEADER]: _mark, ...rest } = headers as Record<string, string | string[] | undefined>
    return dispatch({ ...opts, headers: rest }, new AbortOnLeave(handler, id))
  })
}
