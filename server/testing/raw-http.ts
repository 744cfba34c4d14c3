import http from 'node:http'
import net from 'node:net'

/**
 * Plain `node:http` and socket clients for tests that need what `fetch` hides: any method, path or header as written
 * (bad % escapes, lying content lengths), keep-alive agents, a connection destroyed mid-request, and a hard timeout
 * per request, so that a request the server never answers fails the test instead of hanging it.
 */
export interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  /** Whether the request went out on a kept-alive socket that had served an earlier request. */
  reusedSocket: boolean
}

export interface RawRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: Buffer | string
  agent?: http.Agent | false
  /** Fails the request (a hang) after this long without a complete response; default 10 s. */
  timeoutMs?: number
}

export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const r = http.request({
      host: url.hostname,
      port: url.port,
      method: req.method ?? 'GET',
      path: req.path,
      headers: req.headers,
      agent: req.agent ?? false,
    })
    const timer = setTimeout(() => {
      r.destroy()
      reject(new Error(`no answer within ${req.timeoutMs ?? 10_000} ms: ${req.method ?? 'GET'} ${req.path}`))
    }, req.timeoutMs ?? 10_000)
    r.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        clearTimeout(timer)
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          reusedSocket: r.reusedSocket,
        })
      })
      res.on('error', (err) => {
        clearTimeout(timer)
        reject(err)
      })
    })
    r.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    r.end(req.body)
  })
}

/**
 * Writes `bytes` on a fresh TCP connection and reads what comes back until the server closes it, `destroyAfterMs`
 * passes (the client then cuts the connection, as a client that gives up does), or `timeoutMs` passes.
 */
export function rawSocket(
  baseUrl: string,
  bytes: Buffer | string,
  opts: { destroyAfterMs?: number; timeoutMs?: number } = {},
): Promise<{ response: string; closedByServer: boolean }> {
  const url = new URL(baseUrl)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes))
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ response: Buffer.concat(chunks).toString('latin1'), closedByServer })
    }
    const timer = setTimeout(() => finish(false), opts.destroyAfterMs ?? opts.timeoutMs ?? 10_000)
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('close', () => finish(true))
    socket.on('error', () => {})
  })
}

/** The status and JSON body of a raw HTTP/1.1 response text. */
export function parseRawResponse(text: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
  const body = text.slice(text.indexOf('\r\n\r\n') + 4)
  try {
    return { status, body: JSON.parse(body) }
  } catch {
    return { status, body }
  }
}

const isNullableString = (v: unknown) => v === null || typeof v === 'string'
const keysAre = (o: object, keys: string[]) => Object.keys(o).sort().join() === [...keys].sort().join()

/**
 * Null when `body` is one of the two error shapes of contract 7 exactly as `ApiError.body` writes them (envelope
 * `{error: {message, type, param, code}, request_id}` or detail `{detail, param, request_id}`); else what is wrong.
 */
export function specErrorProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return `not a JSON object: ${String(body).slice(0, 200)}`
  const b = body as Record<string, unknown>
  if (typeof b.request_id !== 'string' || !/^req_[0-9a-f]{24}$/.test(b.request_id)) return 'no request_id'
  if ('error' in b) {
    const e = b.error as Record<string, unknown>
    if (!keysAre(b, ['error', 'request_id'])) return `envelope with other keys: ${Object.keys(b)}`
    if (typeof e !== 'object' || e === null || !keysAre(e, ['message', 'type', 'param', 'code']))
      return `error object of the wrong keys: ${JSON.stringify(e)}`
    if (typeof e.message !== 'string' || typeof e.type !== 'string') return 'message or type not a string'
    if (!isNullableString(e.param) || !isNullableString(e.code)) return 'param or code not a string or null'
    return null
  }
  if (!keysAre(b, ['detail', 'param', 'request_id']))
    return `neither shape: ${JSON.stringify(b).slice(0, 200)}`
  if (typeof b.detail !== 'string' || !isNullableString(b.param)) return 'detail or param of the wrong type'
  return null
}
