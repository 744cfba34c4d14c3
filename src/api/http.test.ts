import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ApiRequestError,
  apiFetch,
  apiJson,
  onUnauthorized,
  parseRetryAfter,
  setCsrfTokenSource,
} from './http.ts'

function stubFetch(status = 200, body: unknown = {}, headers: Record<string, string> = {}) {
  const fetchMock = vi.fn(
    async (_url: string, _init?: RequestInit) =>
      new Response(status === 204 ? null : JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      }),
  )
  vi.stubGlobal('fetch', fetchMock)
  return fetchMock
}

function sentHeaders(fetchMock: ReturnType<typeof stubFetch>): Headers {
  const init = fetchMock.mock.calls[0]?.[1]
  return new Headers(init?.headers)
}

afterEach(() => {
  vi.unstubAllGlobals()
  setCsrfTokenSource(() => null)
})

describe('apiFetch', () => {
  it('adds the CSRF token to every state-changing method and to no GET', async () => {
    setCsrfTokenSource(() => 'tok-1')
    for (const method of ['POST', 'put', 'PATCH', 'DELETE']) {
      const fetchMock = stubFetch()
      await apiFetch('/v1/audio/speech', { method, headers: { 'content-type': 'application/json' } })
      const headers = sentHeaders(fetchMock)
      expect(headers.get('x-csrf-token')).toBe('tok-1')
      expect(headers.get('content-type')).toBe('application/json')
      expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/v1/audio/speech')
    }
    const fetchMock = stubFetch()
    await apiFetch('/health')
    expect(sentHeaders(fetchMock).has('x-csrf-token')).toBe(false)
  })

  it('sends no header when there is no session', async () => {
    const fetchMock = stubFetch()
    await apiFetch('/auth/sign-in', { method: 'POST' })
    expect(sentHeaders(fetchMock).has('x-csrf-token')).toBe(false)
  })

  it('tells listeners about a 401 from anything but the auth calls', async () => {
    const seen: string[] = []
    const off = onUnauthorized((path) => seen.push(path))
    stubFetch(401, {
      error: { message: 'Not signed in.', type: 'authentication_error', param: null, code: 'not_signed_in' },
      request_id: 'req-1',
    })
    await apiFetch('/v1/voices')
    await apiFetch('/auth/me')
    await apiFetch('/auth/sign-in', { method: 'POST' })
    off()
    await apiFetch('/health')
    expect(seen).toEqual(['/v1/voices'])
  })
})

describe('apiJson', () => {
  it('sends JSON and parses the answer', async () => {
    const fetchMock = stubFetch(200, { ok: 1 })
    const body = await apiJson('/x', (b) => b as { ok: number }, { method: 'POST', json: { a: 1 } })
    expect(body).toEqual({ ok: 1 })
    expect(fetchMock.mock.calls[0]?.[1]?.body).toBe('{"a":1}')
    expect(sentHeaders(fetchMock).get('content-type')).toBe('application/json')
  })

  it("throws the backend's refusal with its code, field and Retry-After", async () => {
    stubFetch(
      429,
      {
        error: { message: 'Too many attempts.', type: 'rate_limit_error', param: null, code: 'rate_limited' },
        request_id: 'req-1',
      },
      { 'retry-after': '42' },
    )
    const err = await apiJson('/auth/sign-in', (b) => b, { method: 'POST', json: {} }).catch(
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(ApiRequestError)
    expect(err).toMatchObject({ status: 429, message: 'Too many attempts.', retryAfterSeconds: 42 })
    expect(err).toMatchObject({ code: 'rate_limited', param: null })
  })

  it("reads the service's relayed detail body (contract 7.2) as the same message and field", async () => {
    stubFetch(400, { detail: 'speed out of range', param: 'speed', request_id: 'req_9' })
    const err = await apiJson('/v1/audio/speech', (b) => b, { method: 'POST', json: {} }).catch(
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ status: 400, message: 'speed out of range', code: null, param: 'speed' })
  })
})

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter(null)).toBeNull()
    expect(parseRetryAfter('7')).toBe(7)
    expect(parseRetryAfter('1.2')).toBe(2)
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', now)).toBe(90)
    expect(parseRetryAfter('soon')).toBeNull()
  })
})
