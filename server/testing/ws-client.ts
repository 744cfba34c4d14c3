import WebSocket from 'ws'

/** A real WebSocket client for tests: records every server message and the close, and can wait for either. */
export interface WsTestClient {
  socket: WebSocket
  messages: Array<Record<string, unknown>>
  /** Resolves with the first recorded message (past or future) that matches. */
  next(
    predicate: (m: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>
  closed: Promise<{ code: number; reason: string }>
  sendJson(message: unknown): void
}

export interface RefusedUpgrade {
  status: number
  body: Record<string, unknown>
}

export function connectWs(
  url: string,
  apiKey: string | null,
  headers: Record<string, string> = {},
): Promise<WsTestClient | RefusedUpgrade> {
  const socket = new WebSocket(url, {
    headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
  })
  const messages: Array<Record<string, unknown>> = []
  const waiters = new Set<() => void>()
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>)
    for (const w of waiters) w()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  )
  const client: WsTestClient = {
    socket,
    messages,
    closed,
    sendJson: (message) => socket.send(JSON.stringify(message)),
    next(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate)
          if (!found) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          const counts: Record<string, number> = {}
          for (const m of messages) counts[String(m.type)] = (counts[String(m.type)] ?? 0) + 1
          const errors = messages.filter((m) => m.type === 'error').map((m) => JSON.stringify(m.error))
          reject(new Error(`no matching message; got ${JSON.stringify(counts)} ${errors.join(' ')}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
  }
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client))
    socket.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => {
        body += c
      })
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Record<string, unknown> }),
      )
    })
    socket.once('error', reject)
  })
}
