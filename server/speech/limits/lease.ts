import type { ServerResponse } from 'node:http'
import type { FastifyReply } from 'fastify'
import type { Slot } from './slots.ts'

/**
 * What a request holds — concurrency slots, timers — for as long as its response lives: given back when the response
 * closes, whether it finished, failed or the client cut it. A slot registered on the response's `close` event only
 * after some await is lost when the client left during that await (the event has fired already, nobody releases the
 * slot, and it stays taken until restart). A lease is taken at the start of the handler, before any await, and anything
 * held after the response closed is given back at once.
 */
export class RequestLease {
  private readonly abort = new AbortController()
  private readonly cleanups: Array<() => void> = []

  constructor(res: ServerResponse) {
    if (res.closed) this.end()
    else res.once('close', () => this.end())
  }

  /** Aborted once the response is closed: work for this request should stop. */
  get signal(): AbortSignal {
    return this.abort.signal
  }

  /** Whether the response is closed (finished, or the client has gone). */
  get ended(): boolean {
    return this.abort.signal.aborted
  }

  /** Holds `slot` until the response closes; releases it at once if it already has. */
  hold(slot: Slot): Slot {
    this.defer(() => slot.release())
    return slot
  }

  /** Runs `cleanup` when the response closes, or now if it already has. */
  defer(cleanup: () => void): void {
    if (this.ended) cleanup()
    else this.cleanups.push(cleanup)
  }

  private end() {
    this.abort.abort()
    for (const cleanup of this.cleanups.splice(0)) cleanup()
  }
}

const leases = new WeakMap<ServerResponse, RequestLease>()

/** The lease of the reply's request; the first call (at the start of the handler) creates it. */
export function requestLease(reply: FastifyReply): RequestLease {
  let lease = leases.get(reply.raw)
  if (!lease) {
    lease = new RequestLease(reply.raw)
    leases.set(reply.raw, lease)
  }
  return lease
}

/** Whether the client went away before its response was complete (its errors are not the service's). */
export const clientGone = (res: ServerResponse): boolean => res.destroyed && !res.writableFinished
