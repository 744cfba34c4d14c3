import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import WebSocket from 'ws'
import type { Upstream } from './app.ts'

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

/** Opens the upstream socket with the backend's key; a refused upgrade comes back as status and body. */
function connectUpstream(url: string, apiKey: string) {
  return new Promise<
    { socket: WebSocket } | { status: number; body: string; headers: Record<string, string> }
  >((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } })
    socket.once('open', () => resolve({ socket }))
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
) {
  app.decorateRequest('upstreamSocket', null)
  app.get(
    `/api${path}`,
    {
      websocket: true,
      preValidation: async (request, reply) => {
        await authorize(request, reply)
        if (reply.sent) return
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''
        const url = `${upstream.baseUrl.replace(/^http/, 'ws')}${path}${query}`
        const result = await connectUpstream(url, upstream.apiKey).catch(() => null)
        if (!result) return reply.code(502).send({ detail: 'The speech service could not be reached.' })
        if (!('socket' in result)) return reply.code(result.status).headers(result.headers).send(result.body)
        request.upstreamSocket = hold(result.socket)
      },
    },
    (client, request) => {
      const held = request.upstreamSocket
      if (!held) return client.close(1011)
      const upstreamSocket = held.socket
      upstreamSocket.removeAllListeners('message')
      upstreamSocket.removeAllListeners('close')
      for (const [data, isBinary] of held.early) client.send(data, { binary: isBinary })
      if (held.closed) return client.close(sendableCode(held.closed[0]), held.closed[1])
      upstreamSocket.on('message', (data, isBinary) => client.send(data, { binary: isBinary }))
      client.on('message', (data, isBinary) => {
        if (upstreamSocket.readyState === WebSocket.OPEN) upstreamSocket.send(data, { binary: isBinary })
      })
      upstreamSocket.on('close', (code, reason) => client.close(sendableCode(code), reason))
      client.on('close', (code, reason) => {
        if (upstreamSocket.readyState === WebSocket.OPEN) upstreamSocket.close(sendableCode(code), reason)
        else upstreamSocket.terminate()
      })
      upstreamSocket.on('error', () => client.terminate())
      client.on('error', () => upstreamSocket.terminate())
    },
  )
}
