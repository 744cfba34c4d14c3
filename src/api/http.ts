import { parseRetryAfterMs } from '../../core/retry-after.ts'
import { type ApiErrorBody, apiErrorBodySchema } from '../../schema/index.ts'

/**
 * The one fetch wrapper every request to the studio backend goes through. It adds the CSRF header to
 * state-changing requests and tells listeners when the backend says the session is gone (401).
 * Only the resource files beside it use it (`scripts.ts`, `voices.ts`, …); pages and stores call their typed
 * functions and query options.
 */

export const API_BASE = '/api'

/**
 * A refused request, read once here: the studio backend answers its own refusals in the contract's envelope
 * (`{ error: { message, type, param, code }, request_id }`, server/studio/errors.ts, docs/api.md), and so does the
 * speech service, except for the `{ detail, param }` body contract 7.2 keeps for its other validation, which the
 * backend relays as it came. Everything else reads `message`, `code` and `param` here, whichever shape came.
 */
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

  /** The field the refusal is about, or null. */
  get param(): string | null {
    const body = this.body
    if (!body) return null
    return ('error' in body ? body.error.param : body.param) ?? null
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

/** Tells the listeners when an answer to anything but the auth calls is 401. Every request passes through here. */
function reportUnauthorized(path: string, status: number): void {
  if (status === 401 && !path.startsWith(AUTH_PREFIX)) {
    for (const listener of unauthorizedListeners) listener(path)
  }
}

/** Retry-After in whole seconds, rounded up so a countdown never ends early; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  const ms = parseRetryAfterMs(value, now)
  return ms === null ? null : Math.ceil(ms / 1000)
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
  reportUnauthorized(path, response.status)
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

/**
 * A PUT made on top of a revision (a script, a transcript's label edits); a 409 carries what is saved now, which
 * `conflict` turns into the error thrown.
 */
export async function putRevision<T>(
  path: string,
  body: unknown,
  parse: (body: unknown) => T,
  conflict: (body: unknown) => Error,
): Promise<T> {
  const response = await apiFetch(path, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (response.status === 409) throw conflict(await response.json())
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

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void
  signal?: AbortSignal
}

/** An audio file to upload, with the file name the service sees (its extension hints at the format). */
export interface AudioUpload {
  blob: Blob
  filename: string
}

/**
 * What the two uploads share: an XMLHttpRequest POST (fetch() cannot report upload progress) with the same CSRF header
 * and 401 notification as `apiFetch`, progress reported, and `signal` aborting it. `receiving` may listen to the
 * answer as it arrives; `loaded` settles the promise once it is complete. A network failure rejects with TypeError as
 * fetch() does, an abort with the signal's reason (or an AbortError).
 */
function xhrUpload<T>(
  path: string,
  form: FormData,
  opts: UploadOptions,
  handlers: {
    receiving?: (xhr: XMLHttpRequest) => void
    loaded: (xhr: XMLHttpRequest, resolve: (value: T) => void, reject: (reason: unknown) => void) => void
  },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(opts.signal.reason)
      return
    }
    const xhr = new XMLHttpRequest()
    const abort = () => xhr.abort()
    opts.signal?.addEventListener('abort', abort, { once: true })
    const done = () => opts.signal?.removeEventListener('abort', abort)
    xhr.open('POST', `${API_BASE}${path}`)
    const csrfToken = csrfTokenSource()
    if (csrfToken !== null) xhr.setRequestHeader(CSRF_HEADER, csrfToken)
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) opts.onProgress?.({ loaded: event.loaded, total: event.total })
    })
    handlers.receiving?.(xhr)
    xhr.addEventListener('load', () => {
      done()
      reportUnauthorized(path, xhr.status)
      handlers.loaded(xhr, resolve, reject)
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

/** A complete answer as a Response, to be read as fetch()'s are. */
const responseOf = (xhr: XMLHttpRequest) =>
  new Response(xhr.responseText, { status: xhr.status, headers: headersOf(xhr) })

/**
 * A multipart POST that reports upload progress. Resolves with the parsed 2xx body; anything else rejects as
 * `apiJson` does (xhrUpload says how a network failure and an abort reject).
 */
export function apiUpload<T>(
  path: string,
  form: FormData,
  parse: (body: unknown) => T,
  opts: UploadOptions = {},
): Promise<T> {
  return xhrUpload<T>(path, form, opts, {
    loaded(xhr, resolve, reject) {
      const response = responseOf(xhr)
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
    },
  })
}

export interface StreamUploadOptions extends UploadOptions {
  /** Each piece of the answer's text as it arrives (a streamed answer: SSE). */
  onText?: (chunk: string) => void
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
  let seen = 0
  const drain = (xhr: XMLHttpRequest) => {
    if (xhr.status < 200 || xhr.status >= 300 || xhr.responseText.length <= seen) return
    const chunk = xhr.responseText.slice(seen)
    seen = xhr.responseText.length
    opts.onText?.(chunk)
  }
  return xhrUpload<Headers>(path, form, opts, {
    receiving: (xhr) => xhr.addEventListener('progress', () => drain(xhr)),
    loaded(xhr, resolve, reject) {
      if (xhr.status >= 200 && xhr.status < 300) {
        drain(xhr)
        resolve(headersOf(xhr))
        return
      }
      errorFrom(responseOf(xhr)).then(reject, reject)
    },
  })
}
