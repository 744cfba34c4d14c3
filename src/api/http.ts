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
