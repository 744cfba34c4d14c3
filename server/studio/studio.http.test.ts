import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { healthSchema } from '../../schema/index.ts'
import { type RunningService, readSse, startSpeechService } from '../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, sessionHeaders, startStudio } from '../testing/studio.ts'
import { connectWs } from '../testing/ws-client.ts'

let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders
let reviewer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
  reviewer = await studio.signInAs('reviewer')
})
afterAll(async () => {
  await studio.close()
  await svc.close()
})

const speechBody = JSON.stringify({
  input: 'Through the backend.',
  response_format: 'pcm',
  stream_format: 'sse',
})

function speech(headers: Record<string, string>, body = speechBody) {
  return fetch(`${studio.base}/api/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  })
}

describe('proxy', () => {
  it('forwards speech with its own key: the browser sends none and gets the stream', async () => {
    const res = await speech({ ...designer })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    const raw = await res.clone().text()
    expect(raw).not.toContain(svc.apiKey)
    expect(JSON.stringify([...res.headers])).not.toContain(svc.apiKey)
    expect((await readSse(res)).at(-1)?.type).toBe('speech.audio.done')
  })

  it('replaces any Authorization a browser sends', async () => {
    const res = await speech({ ...designer, authorization: 'Bearer sk_someone_elses' })
    expect(res.status).toBe(200)
    await res.body?.cancel()
  })

  it('passes the service errors through in the contract shapes with their request ids', async () => {
    const res = await speech(
      { ...designer },
      JSON.stringify({ input: 'Hi', model: 'svc-tts-2-latest', temperature: 5 }),
    )
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { param: string }; request_id: string }
    expect(body.error.param).toBe('temperature')
    expect(res.headers.get('x-request-id')).toBe(body.request_id)
  })

  it('lets each role reach only its routes', async () => {
    expect((await speech({ ...reviewer })).status).toBe(403)
    expect(
      (await fetch(`${studio.base}/api/v1/voices?model=svc-tts-2-latest`, { headers: { ...designer } }))
        .status,
    ).toBe(200)
    const admin = await studio.signInAs('admin')
    const res = await speech({ ...admin })
    expect(res.status).toBe(200)
    await res.body?.cancel()
    // Routes no role may use are unknown, for everyone.
    expect((await fetch(`${studio.base}/api/v1/audio/voices`, { headers: { ...admin } })).status).toBe(404)
  })

  it('refuses everything upstream without a session', async () => {
    expect((await fetch(`${studio.base}/api/v1/voices`)).status).toBe(401)
  })
})

describe('sign-in, sessions and CSRF', () => {
  it('sets an httpOnly SameSite=Strict cookie and reports the user', async () => {
    await studio.users.add('dana', 'designer', 'a long password')
    const res = await fetch(`${studio.base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'DANA', password: 'a long password' }),
    })
    expect(res.status).toBe(200)
    const cookie = res.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const body = (await res.json()) as { user: unknown; csrfToken: string; autoLocal: boolean }
    expect(body).toMatchObject({ user: { name: 'dana', role: 'designer' }, autoLocal: false })
    const headers = sessionHeaders(res, body)
    const me = await fetch(`${studio.base}/api/auth/me`, { headers: { cookie: headers.cookie } })
    expect(await me.json()).toMatchObject({ user: { name: 'dana' }, csrfToken: body.csrfToken })
  })

  it('answers a wrong password and an unknown name alike', async () => {
    const attempt = (name: string) =>
      fetch(`${studio.base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': name },
        body: JSON.stringify({ name, password: 'nope nope nope' }),
      })
    const [wrong, unknown] = [await attempt('designer-user'), await attempt('nobody')]
    expect(wrong.status).toBe(401)
    // Alike but for the request id, which is each answer's own.
    const error = async (res: Response) => ((await res.json()) as { error: unknown }).error
    expect(await error(wrong)).toEqual(await error(unknown))
  })

  it('refuses state-changing requests without the session CSRF token', async () => {
    expect((await speech({ cookie: designer.cookie })).status).toBe(403)
    expect((await speech({ cookie: designer.cookie, 'x-csrf-token': 'forged' })).status).toBe(403)
    expect((await speech({ cookie: designer.cookie, 'x-csrf-token': reviewer['x-csrf-token'] })).status).toBe(
      403,
    )
  })

  it('ends the session on sign-out', async () => {
    const headers = await studio.signInAs('designer', 'leaving')
    expect(
      (
        await fetch(`${studio.base}/api/auth/sign-out`, {
          method: 'POST',
          headers: { cookie: headers.cookie },
        })
      ).status,
    ).toBe(403)
    expect(
      (await fetch(`${studio.base}/api/auth/sign-out`, { method: 'POST', headers: { ...headers } })).status,
    ).toBe(204)
    expect((await fetch(`${studio.base}/api/auth/me`, { headers: { cookie: headers.cookie } })).status).toBe(
      401,
    )
  })

  it('ends a user’s sessions when the password changes or the user is removed', async () => {
    const headers = await studio.signInAs('reviewer', 'rotating')
    await studio.users.setPassword('rotating', 'another long one')
    expect((await fetch(`${studio.base}/api/auth/me`, { headers: { cookie: headers.cookie } })).status).toBe(
      401,
    )
    const again = await studio.signInAs('reviewer', 'removed')
    await studio.users.remove('removed')
    expect((await fetch(`${studio.base}/api/auth/me`, { headers: { cookie: again.cookie } })).status).toBe(
      401,
    )
  })
})

describe('sign-in rate limit', () => {
  it('allows 5 failures a minute per address and name, then answers 429 with Retry-After even for the right password', async () => {
    const limited = await startStudio(svc, { signInLimit: { attempts: 5, windowMs: 60_000 } })
    await limited.users.add('eve', 'designer', 'the right password')
    const attempt = (password: string) =>
      fetch(`${limited.base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'eve', password }),
      })
    for (let i = 0; i < 5; i++) expect((await attempt('wrong guess')).status).toBe(401)
    const blocked = await attempt('the right password')
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another person at the same address is not locked out by eve's failures.
    await limited.users.add('sam', 'designer', 'sam password')
    const other = await fetch(`${limited.base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sam', password: 'sam password' }),
    })
    expect(other.status).toBe(200)
    await limited.close()
  })
})

describe('automatic local admin', () => {
  it('opens an admin session on a loopback studio without users, and never once a user exists', async () => {
    const local = await startStudio(svc, { autoLocalAdmin: true })
    const me = await fetch(`${local.base}/api/auth/me`)
    expect(me.status).toBe(200)
    const body = (await me.json()) as { csrfToken: string }
    expect(body).toMatchObject({ user: { role: 'admin' }, autoLocal: true })
    const headers = sessionHeaders(me, body)
    const res = await fetch(`${local.base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: speechBody,
    })
    expect(res.status).toBe(200)
    await res.body?.cancel()

    await local.users.add('owner', 'admin', 'owner password')
    expect((await fetch(`${local.base}/api/auth/me`, { headers: { cookie: headers.cookie } })).status).toBe(
      401,
    )
    expect((await fetch(`${local.base}/api/auth/me`)).status).toBe(401)
    await local.close()
  })

  it('is off unless asked for', async () => {
    const remote = await startStudio(svc)
    expect((await fetch(`${remote.base}/api/auth/me`)).status).toBe(401)
    await remote.close()
  })

  it('tells the sign-in page whether a first user must still be made', async () => {
    const remote = await startStudio(svc)
    const before = await fetch(`${remote.base}/api/auth/setup`)
    expect(before.status).toBe(200)
    expect(before.headers.get('cache-control')).toBe('no-store')
    expect(await before.json()).toEqual({ hasUsers: false })
    await remote.users.add('first', 'admin', 'first password')
    expect(await (await fetch(`${remote.base}/api/auth/setup`)).json()).toEqual({ hasUsers: true })
    await remote.close()
  })
})

describe('text-input speech bridge', () => {
  const url = (query = '') => `${studio.base.replace('http', 'ws')}/api/v1/tts/realtime${query}`

  it('bridges a designer’s socket to the service with the backend key', async () => {
    const client = await connectWs(url('?voice=english_40'), null)
    expect('socket' in client).toBe(false) // no cookie: refused
    const ws = await connectWithCookie(url('?voice=english_40'), designer.cookie)
    if (!('socket' in ws)) throw new Error(`refused ${ws.status}`)
    ws.sendJson({ type: 'input_text.append', text: 'Bridged speech.' })
    ws.sendJson({ type: 'input_text.done' })
    await ws.next((m) => m.type === 'speech.audio.done')
    expect(ws.messages.some((m) => m.type === 'speech.audio.delta')).toBe(true)
    expect((await ws.closed).code).toBe(1000)
  })

  it('passes the service’s refusal through as the same HTTP status and body', async () => {
    const refused = await connectWithCookie(url('?response_format=mp3'), designer.cookie)
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'unsupported_audio_format' } } })
  })

  it('passes error events and close codes through', async () => {
    const ws = await connectWithCookie(url(), designer.cookie)
    if (!('socket' in ws)) throw new Error('refused')
    ws.sendJson({ type: 'input_text.append', text: 'x'.repeat(8193) })
    await ws.next((m) => m.type === 'error')
    expect((await ws.closed).code).toBe(1008)
  })

  it('refuses other roles and other origins', async () => {
    expect(await connectWithCookie(url(), reviewer.cookie)).toMatchObject({ status: 403 })
    expect(await connectWithCookie(url(), designer.cookie, 'https://evil.example')).toMatchObject({
      status: 403,
    })
  })
})

function connectWithCookie(url: string, cookie: string, origin?: string) {
  return connectWs(url, null, { cookie, ...(origin ? { origin } : {}) })
}

describe('health', () => {
  it('reports the upstream and each engine without revealing the key or address', async () => {
    const res = await fetch(`${studio.base}/api/health`)
    const text = await res.text()
    // The shape the app shell parses (schema/health.ts).
    expect(healthSchema.parse(JSON.parse(text))).toMatchObject({
      upstream: { kind: 'embedded', reachable: true },
      engines: { synthesis: true, recognition: expect.any(Boolean), diarization: expect.any(Boolean) },
    })
    expect(text).not.toContain(svc.apiKey)
    expect(text).not.toContain(svc.baseUrl)
  })
})
