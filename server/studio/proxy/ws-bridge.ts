import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import WebSocket from 'ws'
import { refuse, upstreamUnreachable, websocketRequired } from '../errors.ts'
import { bearerHeader, type Upstream, upstreamSocketUrl } from './upstream.ts'

/** An open upstream socket and what it sent before the browser's side was ready. */
interface HeldUpstream {
  socket: WebSocket
  early: Array<[WebSocket.RawData, boolean]>
  closed: [number, Buffer] | null
}

declare module 'fastify' {
  interface FastifyRequest {
    upstreamSocket: HeldUpstream | null
  }
}

function hold(socket: WebSocket): HeldUpstream {
  const held: HeldUpstream = { socket, early: [], closed: null }
  socket.on('message', (data, isBinary) => held.early.push([data, isBinary]))
  socket.once('close', (code, reason) => {
    held.closed = [code, reason]
  })
  return held
}

/** Close codes that may not be sent in a close frame are mapped to ones that may. */
function sendableCode(code: number): number {
  if (code === 1005) return 1000
  if (code === 1006 || code === 1015) return 1011
  return code
}

/** Opens the upstream socket with `apiKey` as bearer; a refused upgrade comes back as status and body. */
function connectUpstream(url: string, apiKey: string) {
  return new Promise<{ held: HeldUpstream } | UpstreamRefusal>((resolve, reject) => {
    const socket = new WebSocket(url, { headers: bearerHeader(apiKey) })
    // Held from the start: a service that speaks first (session.created) may send in the same tick as 'open'.
    const held = hold(socket)
    socket.once('open', () => resolve({ held }))
    socket.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c
      })
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 502,
          body,
          headers: { 'content-type': String(res.headers['content-type'] ?? 'application/json') },
        }),
      )
    })
    socket.once('error', reject)
  })
}

/** A refusal from the upstream (status, body, headers), passed to the browser as its answer to the upgrade. */
export interface UpstreamRefusal {
  status: number
  body: string
  headers: Record<string, string>
}

export interface BridgeOptions {
  /**
   * The bearer the upstream socket is opened with. Default: the backend's durable key. A bridge that must not hand
   * the durable key's powers to the session (realtime transcription) mints a short-lived credential here; a refusal
   * is answered to the browser as it came.
   */
  credential?: (request: FastifyRequest) => Promise<string | UpstreamRefusal>
  /** The query string sent upstream (with its `?`, or empty). Default: the browser's own. */
  upstreamQuery?: (request: FastifyRequest) => string
  /**
   * Sees every text frame each way once it is relayed, and the end of the session (to keep a record of it). A tap
   * that throws is dropped; it never disturbs the relay.
   */
  tap?: (request: FastifyRequest) => BridgeTap | undefined
}

export interface BridgeTap {
  client(text: string): void
  server(text: string): void
  /** Finishes later (saving the session); a failure then is logged like a throw. */
  close(): Promise<unknown>
}

/** Wraps a tap so that its first failure detaches it. */
function safeTap(tap: BridgeTap | undefined, log: FastifyRequest['log']): BridgeTap | undefined {
  if (!tap) return undefined
  let broken = false
  const guard =
    (fn: (text: string) => void) =>
    (text: string): void => {
      if (broken) return
      try {
        fn(text)
      } catch (err) {
        broken = true
        log.warn({ err }, 'socket tap failed; the session is relayed without it')
      }
    }
  let closed = false
  return {
    client: guard((t) => tap.client(t)),
    server: guard((t) => tap.server(t)),
    close: async () => {
      if (closed || broken) return
      closed = true
      await tap.close().catch((err) => log.warn({ err }, 'socket tap failed; the session was not kept'))
    },
  }
}

/**
 * Browsers cannot put `Authorization` on a WebSocket, so the backend opens the upstream socket itself and relays
 * frames both ways, keeping text/binary and passing close codes through. The upstream is dialled before the browser's
 * upgrade completes, so a refusal (400, 403, …) reaches the browser as the same HTTP status.
 */
export function registerWsBridge(
  app: FastifyInstance,
  path: string,
  upstream: Upstream,
  authorize: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined,
  opts: BridgeOptions = {},
) {
  if (!app.hasRequestDecorator('upstreamSocket')) app.decorateRequest('upstreamSocket', null)
  app.get(
    `/api${path}`,
    {
      websocket: true,
      preValidation: async (request, reply) => {
        // A plain GET here would dial the service for nothing and get an empty 404 from the plugin.
        if (!request.ws) return refuse(reply, websocketRequired())
        await authorize(request, reply)
        if (reply.sent) return
        const query = opts.upstreamQuery
          ? opts.upstreamQuery(request)
          : request.url.includes('?')
            ? request.url.slice(request.url.indexOf('?'))
            : ''
        const url = upstreamSocketUrl(upstream, `${path}${query}`)
        const bearer = opts.credential ? await opts.credential(request).catch(() => null) : upstream.apiKey
        if (bearer === null) return refuse(reply, upstreamUnreachable())
        if (typeof bearer !== 'string')
          return reply.code(bearer.status).headers(bearer.headers).send(bearer.body)
        const result = await connectUpstream(url, bearer).catch(() => null)
        if (!result) return refuse(reply, upstreamUnreachable())
        if (!('held' in result)) return reply.code(result.status).headers(result.headers).send(result.body)
        request.upstreamSocket = result.held
      },
    },
    (client, request) => {
      const held = request.upstreamSocket
      if (!held) return client.close(1011)
      const upstreamSocket = held.socket
      const tap = safeTap(opts.tap?.(request), request.log)
      upstreamSocket.removeAllListeners('message')
      upstreamSocket.removeAllListeners('close')
      for (const [data, isBinary] of held.early) {
        client.send(data, { binary: isBinary })
        if (!isBinary) tap?.server(String(data))
      }
      if (held.closed) {
        void tap?.close()
        return client.close(sendableCode(held.closed[0]), held.closed[1])
      }
      upstreamSocket.on('message', (data, isBinary) => {
        client.send(data, { binary: isBinary })
        if (!isBinary) tap?.server(String(data))
      })
      client.on('message', (data, isBinary) => {
        if (upstreamSocket.readyState === WebSocket.OPEN) upstreamSocket.send(data, { binary: isBinary })
        if (!isBinary) tap?.client(String(data))
      })
      upstreamSocket.on('close', (code, reason) => {
        void tap?.close()
        client.close(sendableCode(code), reason)
      })
      client.on('close', (code, reason) => {
        void tap?.close()
        if (upstreamSocket.readyState === WebSocket.OPEN) upstreamSocket.close(sendableCode(code), reason)
        else upstreamSocket.terminate()
      })
      upstreamSocket.on('error', () => client.terminate())
      client.on('error', () => upstreamSocket.terminate())
    },
  )
}
