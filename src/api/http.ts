import { type ApiErrorBody, apiErrorBodySchema } from '../../schema/index.ts'

/**
 * The one fetch wrapper every request to the studio backend goes through. It adds the CSRF header to
 * state-changing requests and tells listeners when the backend says the session is gone (401).
 * Only `client.ts` uses it; pages and stores call the typed functions there.
 */

export const API_BASE = '/api'

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody | null,
    readonly requestId: string | null,
    /** Seconds from a Retry-After header (429, 503), when the backend sent one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(ApiRequestError.describe(status, body))
  }

  get code(): string | null {
    return this.body && 'error' in this.body ? this.body.error.code : null
  }

  private static describe(status: number, body: ApiErrorBody | null): string {
    if (!body) return `The service answered ${status}.`
    return 'error' in body ? body.error.message : body.detail
  }
}

/** Methods that change state; the backend refuses them without `x-csrf-token`. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export const CSRF_HEADER = 'x-csrf-token'

/**
 * Where the wrapper reads the current session's CSRF token (from /api/auth/me or sign-in). The session store
 * (src/state/session.ts) holds the token and registers itself here, so the token has one home.
 */
let csrfTokenSource: () => string | null = () => null

export function setCsrfTokenSource(source: () => string | null): void {
  csrfTokenSource = source
}

export function needsCsrf(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase())
}

type UnauthorizedListener = (path: string) => void
const unauthorizedListeners = new Set<UnauthorizedListener>()

/** Called when a request other than the auth calls themselves answers 401 (the session expired or was ended). */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener)
  return () => unauthorizedListeners.delete(listener)
}

/** Auth calls report their own 401s to their callers; they must not trigger the listeners. */
const AUTH_PREFIX = '/auth/'

export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds))
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}

export async function errorFrom(response: Response): Promise<ApiRequestError> {
  const requestId = response.headers.get('x-request-id')
  const parsed = apiErrorBodySchema.safeParse(await response.json().catch(() => null))
  return new ApiRequestError(
    response.status,
    parsed.success ? parsed.data : null,
    requestId,
    parseRetryAfter(response.headers.get('retry-after')),
  )
}

/**
 * fetch() against `/api` + `path`. Adds the CSRF header to POST/PUT/PATCH/DELETE and sends cookies
 * (same-origin). Returns the response as it is: callers decide what a non-2xx status means.
 */
export async function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const method = (init.method ?? 'GET').toUpperCase()
  const headers = new Headers(init.headers)
  const csrfToken = needsCsrf(method) ? csrfTokenSource() : null
  if (csrfToken !== null) headers.set(CSRF_HEADER, csrfToken)
  const response = await fetch(`${API_BASE}${path}`, {
    ...init,
    method,
    headers,
    credentials: 'same-origin',
  })
  if (response.status === 401 && !path.startsWith(AUTH_PREFIX)) {
    for (const listener of unauthorizedListeners) listener(path)
  }
  return response
}

/** A JSON request whose 2xx body is returned parsed; anything else throws ApiRequestError. */
export async function apiJson<T>(
  path: string,
  parse: (body: unknown) => T,
  init: RequestInit & { json?: unknown } = {},
): Promise<T> {
  const { json, ...rest } = init
  const headers = new Headers(rest.headers)
  if (json !== undefined) headers.set('content-type', 'application/json')
  const response = await apiFetch(path, {
    ...rest,
    headers,
    body: json === undefined ? rest.body : JSON.stringify(json),
  })
  if (!response.ok) throw await errorFrom(response)
  return parse(await response.json())
}

export interface UploadProgress {
  /** Bytes of the request body sent so far. */
  loaded: number
  total: number
}

function headersOf(xhr: XMLHttpRequest): Headers {
  const headers = new Headers()
  for (const line of xhr
    .getAllResponseHeaders()
    .trim()
    .split(/[\r\n]+/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
  }
  return headers
}

/**
 * A multipart POST that reports upload progress, which fetch() cannot: XMLHttpRequest with the same CSRF header,
 * 401 notification and error parsing as `apiFetch`/`apiJson`. Resolves with the parsed 2xx body; a network failure
 * rejects with TypeError as fetch() does, an abort with an AbortError.
 */
export function apiUpload<T>(
  path: string,
  form: FormData,
  parse: (body: unknown) => T,
  opts: { onProgress?: (progress: UploadProgress) => void; signal?: AbortSignal } = {},
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    const abort = () => xhr.abort()
    if (opts.signal?.aborted) {
      reject(opts.signal.reason)
      return
    }
    opts.signal?.addEventListener('abort', abort, { once: true })
    const done = () => opts.signal?.removeEventListener('abort', abort)
    xhr.open('POST', `${API_BASE}${path}`)
    const csrfToken = csrfTokenSource()
    if (csrfToken !== null) xhr.setRequestHeader(CSRF_HEADER, csrfToken)
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) opts.onProgress?.({ loaded: event.loaded, total: event.total })
    })
    xhr.addEventListener('load', () => {
      done()
      if (xhr.status === 401 && !path.startsWith(AUTH_PREFIX)) {
        for (const listener of unauthorizedListeners) listener(path)
      }
      const response = new Response(xhr.responseText, { status: xhr.status, headers: headersOf(xhr) })
      if (!response.ok) {
        errorFrom(response).then(reject, reject)
        return
      }
      response.json().then((body) => {
        try {
          resolve(parse(body))
        } catch (err) {
          reject(err)
        }
      }, reject)
    })
    xhr.addEventListener('error', () => {
      done()
      reject(new TypeError('Failed to fetch'))
    })
    xhr.addEventListener('abort', () => {
      done()
      reject(opts.signal?.reason ?? new DOMException('The upload was cancelled.', 'AbortError'))
    })
    xhr.send(form)
  })
}

export interface StreamUploadOptions {
  onProgress?: (progress: UploadProgress) => void
  /** Each piece of the answer's text as it arrives (a streamed answer: SSE). */
  onText?: (chunk: string) => void
  signal?: AbortSignal
}

/**
 * Like `apiUpload`, for a streamed answer: each piece of a 2xx answer's text goes to `onText` as it arrives, and the
 * promise resolves with the answer's headers once it is complete. Failures reject as `apiUpload`'s do.
 */
export function apiUploadStream(
  path: string,
  form: FormData,
  opts: StreamUploadOptions = {},
): Promise<Headers> {
  return new Promise<Headers>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    const abort = () => xhr.abort()
    if (opts.signal?.aborted) {
      reject(opts.signal.reason)
      return
    }
    opts.signal?.addEventListener('abort', abort, { once: true })
    const done = () => opts.signal?.removeEventListener('abort', abort)
    xhr.open('POST', `${API_BASE}${path}`)
    const csrfToken = csrfTokenSource()
    if (csrfToken !== null) xhr.setRequestHeader(CSRF_HEADER, csrfToken)
    let seen = 0
    const drain = () => {
      if (xhr.status < 200 || xhr.status >= 300 || xhr.responseText.length <= seen) return
      const chunk = xhr.responseText.slice(seen)
      seen = xhr.responseText.length
      opts.onText?.(chunk)
    }
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) opts.onProgress?.({ loaded: event.loaded, total: event.total })
    })
    xhr.addEventListener('progress', drain)
    xhr.addEventListener('load', () => {
      done()
      if (xhr.status >= 200 && xhr.status < 300) {
        drain()
        resolve(headersOf(xhr))
        return
      }
      if (xhr.status === 401 && !path.startsWith(AUTH_PREFIX)) {
        for (const listener of unauthorizedListeners) listener(path)
      }
      errorFrom(new Response(xhr.responseText, { status: xhr.status, headers: headersOf(xhr) })).then(
        reject,
        reject,
      )
    })
    xhr.addEventListener('error', () => {
      done()
      reject(new TypeError('Failed to fetch'))
    })
    xhr.addEventListener('abort', () => {
      done()
      reject(opts.signal?.reason ?? new DOMException('The upload was cancelled.', 'AbortError'))
    })
    xhr.send(form)
  })
}
