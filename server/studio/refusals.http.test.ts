import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Role } from '../../schema/index.ts'
import type { RunningService } from '../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio, studioRefusal } from '../testing/studio.ts'

/**
 * One error language (server/studio/errors.ts, docs/api.md): every route of the studio backend refuses — not signed
 * in, a role that may not, a bad body or query, no CSRF token, too many sign-ins, an address it does not serve — in
 * the contract's envelope with a code, nothing else beside it. The table below names every route the backend
 * registers (the first test proves it against the router), with who may use it and a body it refuses.
 */

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** As registered; `:id` is filled in with an id that does not exist. */
  path: string
  /** Roles that may use it (admin may use everything); `public` when no session is needed. */
  roles: readonly Role[] | 'public'
  /** A body this route refuses with 400 `invalid_body` once the caller may use it (JSON unless a string). */
  badBody?: { body: unknown; param?: string | null; code?: string; status?: number }
  /** A query this route refuses with 400 `invalid_body`. */
  badQuery?: string
  /** A socket bridge: a plain GET is 426, an upgrade is refused as a GET would be. */
  socket?: boolean
  /** The backend's own route under `/api/v1/` (registered beside the proxy's wildcard, not through it). */
  own?: boolean
}

const DESIGNER: readonly Role[] = ['designer']
const REVIEWER: readonly Role[] = ['reviewer']
const AUDITORS: readonly Role[] = ['consent_admin']

const ROUTES: Route[] = [
  { method: 'GET', path: '/api/health', roles: 'public' },
  { method: 'GET', path: '/api/auth/setup', roles: 'public' },
  { method: 'GET', path: '/api/auth/me', roles: ['designer', 'reviewer', 'consent_admin'] },
  {
    method: 'POST',
    path: '/api/auth/sign-in',
    roles: 'public',
    badBody: { body: { name: 'x' }, param: null },
  },
  { method: 'POST', path: '/api/auth/sign-out', roles: 'public' },
  { method: 'GET', path: '/api/audit', roles: AUDITORS, badQuery: 'limit=many' },
  { method: 'GET', path: '/api/audit/origins', roles: AUDITORS },
  { method: 'GET', path: '/api/audit/erasures', roles: AUDITORS },
  { method: 'GET', path: '/api/audit/consents/:id/record', roles: AUDITORS },
  { method: 'GET', path: '/api/takes/erasable', roles: AUDITORS, badQuery: 'voice=a%20b' },
  {
    method: 'POST',
    path: '/api/consent-requests',
    roles: AUDITORS,
    badBody: { body: { owner_name: 'Ada' }, param: 'language' },
  },
  { method: 'GET', path: '/api/consent-requests', roles: AUDITORS },
  { method: 'DELETE', path: '/api/consent-requests/:id', roles: AUDITORS },
  // The owner's side of a consent link: no session, the token in the path (consent-requests/routes.ts).
  { method: 'GET', path: '/api/consent-links/:token', roles: 'public' },
  { method: 'POST', path: '/api/consent-links/:token', roles: 'public' },
  { method: 'GET', path: '/api/scripts', roles: DESIGNER },
  { method: 'POST', path: '/api/scripts', roles: DESIGNER, badBody: { body: { title: 7 }, param: 'title' } },
  { method: 'GET', path: '/api/scripts/:id', roles: DESIGNER },
  {
    method: 'PUT',
    path: '/api/scripts/:id',
    roles: DESIGNER,
    badBody: { body: { revision: 'one' }, param: undefined },
  },
  { method: 'DELETE', path: '/api/scripts/:id', roles: DESIGNER },
  { method: 'GET', path: '/api/scripts/:id/takes', roles: DESIGNER },
  {
    method: 'POST',
    path: '/api/scripts/:id/takes',
    roles: DESIGNER,
    badBody: { body: '{}', param: null, code: 'unsupported_media_type', status: 415 },
  },
  { method: 'GET', path: '/api/takes/:id/audio', roles: DESIGNER },
  {
    method: 'PATCH',
    path: '/api/takes/:id',
    roles: DESIGNER,
    badBody: { body: { starred: 'yes' }, param: 'starred' },
  },
  { method: 'DELETE', path: '/api/takes/:id', roles: DESIGNER },
  { method: 'GET', path: '/api/pronunciations', roles: DESIGNER },
  {
    method: 'POST',
    path: '/api/pronunciations',
    roles: DESIGNER,
    badBody: { body: { text: 'x', say_as: 7 }, param: 'say_as' },
  },
  {
    method: 'POST',
    path: '/api/pronunciations/import',
    roles: DESIGNER,
    badBody: { body: { entries: 'all' }, param: 'entries' },
  },
  { method: 'DELETE', path: '/api/pronunciations/:id', roles: DESIGNER },
  { method: 'GET', path: '/api/transcripts', roles: REVIEWER },
  {
    method: 'POST',
    path: '/api/transcripts',
    roles: REVIEWER,
    badBody: { body: '{}', param: null, code: 'unsupported_media_type', status: 415 },
  },
  { method: 'GET', path: '/api/transcripts/:id', roles: REVIEWER },
  { method: 'GET', path: '/api/transcripts/:id/audio', roles: REVIEWER },
  {
    method: 'PUT',
    path: '/api/transcripts/:id/labels',
    roles: REVIEWER,
    badBody: { body: { revision: 0, edits: 'none' }, param: 'edits' },
  },
  {
    method: 'PUT',
    path: '/api/transcripts/:id/peaks',
    roles: REVIEWER,
    badBody: { body: {}, param: 'data' },
  },
  {
    method: 'POST',
    path: '/api/transcripts/:id/alignments',
    roles: REVIEWER,
    badBody: { body: { start: 0, end: 1, words: 'none' }, param: 'words' },
  },
  { method: 'DELETE', path: '/api/transcripts/:id', roles: REVIEWER },
  { method: 'GET', path: '/api/v1/tts/realtime', roles: DESIGNER, socket: true },
  { method: 'GET', path: '/api/v1/realtime', roles: REVIEWER, socket: true },
  // Live transcription over WebRTC: the SDP exchange relayed by the backend (live/calls.ts).
  {
    method: 'POST',
    path: '/api/v1/realtime/calls',
    roles: REVIEWER,
    own: true,
    badBody: { body: '{}', param: null, code: 'unsupported_media_type', status: 415 },
  },
  { method: 'DELETE', path: '/api/v1/realtime/calls/:id', roles: REVIEWER, own: true },
  // The proxy: one wildcard, reached per upstream route (proxy/access.ts holds the table).
  { method: 'POST', path: '/api/v1/audio/speech', roles: ['designer', 'consent_admin'] },
  { method: 'GET', path: '/api/v1/voices', roles: ['designer', 'consent_admin'] },
  { method: 'POST', path: '/api/v1/audio/transcriptions', roles: REVIEWER },
  { method: 'GET', path: '/api/v1/audio/voice_consents', roles: AUDITORS },
  { method: 'DELETE', path: '/api/v1/audio/voices/:id', roles: AUDITORS },
]

const ALL_ROLES: readonly Role[] = ['designer', 'reviewer', 'consent_admin']
const MISSING_ID = 'no-such-id-0000'
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** No service behind it: every refusal here comes before the studio would call one. */
const NO_SERVICE = { baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test_unused' } as RunningService

let studio: RunningStudio
const sessions = new Map<Role, BrowserHeaders>()

beforeAll(async () => {
  studio = await startStudio(NO_SERVICE, { signInLimit: { attempts: 2, windowMs: 60_000 } })
  for (const role of ALL_ROLES) sessions.set(role, await studio.signInAs(role))
})
afterAll(async () => {
  await studio?.close()
})

const urlOf = (route: Route) => `${studio.base}${route.path.replace(':id', MISSING_ID)}`

function call(route: Route, headers: Record<string, string> = {}, body?: unknown, query = '') {
  const json = body !== undefined && typeof body !== 'string'
  return fetch(`${urlOf(route)}${query ? `?${query}` : ''}`, {
    method: route.method,
    headers: { ...headers, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : json ? JSON.stringify(body) : (body as string),
  })
}

async function expectRefusal(res: Response, status: number, code: string, param?: string | null) {
  expect(res.status, `${res.url} ${status} ${code}`).toBe(status)
  expect(res.headers.get('cache-control')).toBe('no-store')
  const error = await studioRefusal(res)
  expect(error.code).toBe(code)
  if (param !== undefined) expect(error.param).toBe(param)
  return error
}

/** The answer to a WebSocket upgrade that is refused: its status and body. */
function refusedUpgrade(route: Route, headers: Record<string, string>) {
  return new Promise<Response>((resolve, reject) => {
    const socket = new WebSocket(urlOf(route).replace(/^http/, 'ws'), {
      headers: { origin: studio.base, ...headers },
    })
    socket.once('open', () => reject(new Error('the upgrade was accepted')))
    socket.once('unexpected-response', (_req, res) => {
      let text = ''
      res.on('data', (c: Buffer) => {
        text += c
      })
      res.on('end', () =>
        resolve(
          new Response(text, {
            status: res.statusCode ?? 0,
            headers: { 'cache-control': String(res.headers['cache-control'] ?? '') },
          }),
        ),
      )
    })
    socket.once('error', reject)
  })
}

describe('every studio route refuses in the contract’s envelope', () => {
  it('names every route the backend registers', () => {
    const registered = new Set<string>()
    // The router's tree, "│   └── /:id (GET, HEAD, DELETE)": each line's path continues its parent's.
    const parents: string[] = []
    for (const line of studio.app.printRoutes({ commonPrefix: false }).split('\n')) {
      const match = /^([│ ]*)[├└]── (\S+) \(([^)]*)\)/.exec(line)
      if (!match?.[2] || !match[3]) continue
      const depth = (match[1] ?? '').length / 4
      const path = (parents[depth - 1] ?? '') + match[2]
      parents[depth] = path
      for (const method of match[3].split(', ')) {
        if (method !== 'HEAD' && method !== 'OPTIONS') registered.add(`${method} ${path}`)
      }
    }
    const listed = new Set(
      ROUTES.filter((r) => !r.path.startsWith('/api/v1/') || r.socket || r.own).map(
        (r) => `${r.method} ${r.path}`,
      ),
    )
    // The proxy's wildcard and the app's own static routes (none without a built app) are covered otherwise.
    const own = [...registered].filter((r) => r.includes('/api/') && !/ \/api\/v1(\/|\/\*)?$/.test(r))
    expect(own.filter((r) => !listed.has(r)).sort()).toEqual([])
    expect([...listed].filter((r) => !registered.has(r)).sort()).toEqual([])
  })

  it('not signed in: 401 not_signed_in on reads, 403 csrf_refused on state changes', async () => {
    for (const route of ROUTES.filter((r) => r.roles !== 'public' && !r.socket)) {
      const res = await call(route)
      if (UNSAFE.has(route.method)) await expectRefusal(res, 403, 'csrf_refused')
      else await expectRefusal(res, 401, 'not_signed_in')
    }
    for (const route of ROUTES.filter((r) => r.socket)) {
      await expectRefusal(await refusedUpgrade(route, {}), 401, 'not_signed_in')
    }
  })

  it('signed in without the CSRF token: 403 csrf_refused on every state change', async () => {
    const { cookie } = sessions.get('designer') as BrowserHeaders
    const tokenOnly = new Set(['/api/auth/sign-in', '/api/consent-links/:token'])
    for (const route of ROUTES.filter((r) => UNSAFE.has(r.method) && !tokenOnly.has(r.path))) {
      await expectRefusal(await call(route, { cookie }), 403, 'csrf_refused')
      await expectRefusal(await call(route, { cookie, 'x-csrf-token': 'stale' }), 403, 'csrf_refused')
    }
  })

  it('a role that may not: 403 forbidden_for_role', async () => {
    for (const route of ROUTES.filter((r) => r.roles !== 'public')) {
      const allowed = route.roles as readonly Role[]
      for (const role of ALL_ROLES.filter((r) => !allowed.includes(r))) {
        const headers = sessions.get(role) as BrowserHeaders
        const res = route.socket
          ? await refusedUpgrade(route, { ...headers })
          : await call(route, { ...headers })
        await expectRefusal(res, 403, 'forbidden_for_role')
      }
    }
  })

  it('a bad body or query: 400 invalid_body naming the field (415 for a form sent as something else)', async () => {
    for (const route of ROUTES.filter((r) => r.badBody || r.badQuery)) {
      const role = route.roles === 'public' ? 'designer' : (route.roles[0] as Role)
      const headers = { ...(sessions.get(role) as BrowserHeaders) }
      if (route.badBody) {
        const { body, param, code = 'invalid_body', status = 400 } = route.badBody
        await expectRefusal(await call(route, headers, body), status, code, param)
      }
      if (route.badQuery)
        await expectRefusal(await call(route, headers, undefined, route.badQuery), 400, 'invalid_body')
    }
  })

  it('bodies the router cannot read, unknown ids and addresses, plain GETs of sockets, other origins', async () => {
    const designer = { ...(sessions.get('designer') as BrowserHeaders) }
    const scripts = ROUTES.find((r) => r.method === 'POST' && r.path === '/api/scripts') as Route
    const malformed = await fetch(urlOf(scripts), {
      method: 'POST',
      headers: { ...designer, 'content-type': 'application/json' },
      body: '{"title": ',
    })
    const unread = await expectRefusal(malformed, 400, 'invalid_request')
    expect(unread.message).toMatch(/JSON/i)
    const notJson = await fetch(`${studio.base}/api/scripts`, {
      method: 'POST',
      headers: { ...designer, 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    })
    await expectRefusal(notJson, 413, 'too_large')
    await expectRefusal(
      await fetch(`${studio.base}/api/scripts/${MISSING_ID}`, { headers: designer }),
      404,
      'not_found',
    )
    await expectRefusal(await fetch(`${studio.base}/api/nowhere`, { headers: designer }), 404, 'not_found')
    await expectRefusal(
      await fetch(`${studio.base}/api/scripts/%E0%A4%A`, { headers: designer }),
      400,
      'invalid_address',
    )
    await expectRefusal(
      await fetch(`${studio.base}/api/v1/models`, { headers: designer }),
      404,
      'not_forwarded',
    )
    for (const route of ROUTES.filter((r) => r.socket)) {
      const role = (route.roles as readonly Role[])[0] as Role
      const headers = { ...(sessions.get(role) as BrowserHeaders) }
      await expectRefusal(await fetch(urlOf(route), { headers }), 426, 'websocket_required')
      await expectRefusal(
        await refusedUpgrade(route, { ...headers, origin: 'https://elsewhere.example' }),
        403,
        'origin_refused',
      )
    }
  })

  it('wrong credentials and too many sign-ins: 401 wrong_credentials, then 429 rate_limited with Retry-After', async () => {
    const signIn = () =>
      fetch(`${studio.base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'designer-user', password: 'wrong' }),
      })
    await expectRefusal(await signIn(), 401, 'wrong_credentials')
    await expectRefusal(await signIn(), 401, 'wrong_credentials')
    const limited = await signIn()
    const error = await expectRefusal(limited, 429, 'rate_limited')
    expect(error.type).toBe('rate_limit_error')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})
