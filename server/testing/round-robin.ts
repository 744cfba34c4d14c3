import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect, type Socket } from 'node:net'

/**
 * A load balancer for tests: each HTTP request and each WebSocket upgrade goes to the next backend in turn, so a
 * browser's consecutive requests alternate between instances (the strictest a real balancer would be). Bodies and
 * sockets are piped both ways unchanged; the Host header stays the front's, as behind a reverse proxy.
 */

export interface RoundRobin {
  readonly base: string
  readonly port: number
  /** How many requests and upgrades went to each backend, in order. */
  readonly counts: number[]
  close(): Promise<void>
}

export async function startRoundRobin(backends: readonly string[], port = 0): Promise<RoundRobin> {
  const targets = backends.map((b) => new URL(b))
  const counts = targets.map(() => 0)
  let next = 0
  const pick = () => {
    const i = next
    next = (next + 1) % targets.length
    counts[i] = (counts[i] ?? 0) + 1
    return targets[i] as URL
  }
  const sockets = new Set<Socket>()

  const server: Server = createServer((req, res) => {
    const target = pick()
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as Record<string, string>)
        answer.pipe(res)
        res.once('close', () => answer.destroy())
      },
    )
    upstream.once('error', () => {
      if (!res.headersSent) res.writeHead(502).end()
      else res.destroy()
    })
    req.once('aborted', () => upstream.destroy())
    req.pipe(upstream)
  })

  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = pick()
    const upstream = connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`]
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`)
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.once('close', () => sockets.delete(s))
    }
    upstream.once('error', () => client.destroy())
    client.once('error', () => upstream.destroy())
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const bound = (server.address() as AddressInfo).port
  return {
    base: `http://127.0.0.1:${bound}`,
    port: bound,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
