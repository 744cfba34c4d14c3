import { statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultVoiceFor, SECOND_GEN_MODEL } from '../../schema/index.ts'
import { rawSocket } from '../testing/raw-http.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../testing/studio.ts'
import { connectWs } from '../testing/ws-client.ts'

/**
 * The outside probe's findings against the studio backend (docs/security.md), each through the real backend and the
 * real local service. Node's fetch will not let a test write Host or an absolute-form target, so these use node:http.
 */
interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function raw(
  base: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string; setHost?: boolean },
): Promise<RawAnswer> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: opts.method ?? 'GET',
        path: opts.path,
        headers: opts.headers,
        setHost: opts.setHost ?? true,
        agent: false,
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          body += c
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

let svc: RunningService
beforeAll(async () => {
  svc = await startSpeechService()
})
afterAll(async () => {
  await svc?.close()
})

describe('DNS rebinding: a loopback studio answers only to loopback names', () => {
  let studio: RunningStudio
  let port: string
  beforeAll(async () => {
    // As `npm start` runs it: no users, automatic local admin.
    studio = await startStudio(svc, { autoLocalAdmin: true })
    port = new URL(studio.base).port
  })
  afterAll(async () => {
    await studio?.close()
  })

  it('gives a page at another name no session, cookie or token', async () => {
    const answer = await raw(studio.base, {
      path: '/api/auth/me',
      headers: { host: `rebind.attacker.example:${port}` },
    })
    expect(answer.status).toBe(421)
    expect(answer.headers['set-cookie']).toBeUndefined()
    expect(answer.body).not.toContain('csrfToken')
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: 'host_refused', type: 'invalid_request_error' },
    })
  })

  it('refuses every route at that name, the socket bridge and state changes included', async () => {
    const host = `rebind.attacker.example:${port}`
    for (const [method, path] of [
      ['GET', '/api/health'],
      ['GET', '/api/audit'],
      ['POST', '/api/v1/audio/speech'],
      ['GET', '/api/v1/tts/realtime'],
      ['GET', '/'],
    ] as const) {
      expect((await raw(studio.base, { method, path, headers: { host } })).status, `${method} ${path}`).toBe(
        421,
      )
    }
    const socket = await connectWs(`ws://127.0.0.1:${port}/api/v1/tts/realtime`, null, {
      host,
      origin: `http://${host}`,
    })
    expect(socket).toMatchObject({ status: 421 })
  })

  it('still opens itself at 127.0.0.1, localhost and [::1]', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const answer = await raw(studio.base, { path: '/api/auth/me', headers: { host } })
      expect(answer.status, host).toBe(200)
      expect(JSON.parse(answer.body)).toMatchObject({ autoLocal: true })
    }
  })

  it('refuses a missing Host and lookalikes', async () => {
    for (const host of [
      '127.0.0.1.attacker.example',
      'localhost.attacker.example',
      '127.0.0.1@evil.example',
    ]) {
      expect((await raw(studio.base, { path: '/api/auth/me', headers: { host } })).status, host).toBe(421)
    }
    // Without Host at all, Node's own parser refuses HTTP/1.1 (400) before the studio sees it.
    const none = await raw(studio.base, { path: '/api/auth/me', setHost: false })
    expect([400, 421]).toContain(none.status)
    expect(none.headers['set-cookie']).toBeUndefined()
  })
})

describe('the socket bridge trusts configured origins, not the request’s Host', () => {
  let studio: RunningStudio
  let designer: BrowserHeaders
  let port: string
  beforeAll(async () => {
    studio = await startStudio(svc)
    designer = await studio.signInAs('designer')
    port = new URL(studio.base).port
  })
  afterAll(async () => {
    await studio?.close()
  })
  const url = () => `ws://127.0.0.1:${port}/api/v1/tts/realtime?voice=english_40`

  it('opens for the studio’s own loopback origin', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      const ws = await connectWs(url(), null, { cookie: designer.cookie, origin })
      if (!('socket' in ws)) throw new Error(`refused ${ws.status} for ${origin}`)
      ws.socket.close()
    }
  })

  it('answers a null, unparsable or foreign origin with 403, not 500', async () => {
    for (const origin of [
      'null',
      '%%%',
      'http://',
      'https://evil.example',
      `http://127.0.0.1:${Number(port) + 1}`,
      `file://${port}`,
    ]) {
      expect(await connectWs(url(), null, { cookie: designer.cookie, origin }), origin).toMatchObject({
        status: 403,
      })
    }
  })

  it('opens for a configured public origin (a reverse proxy’s name) and its Host', async () => {
    const proxied = await startStudio(svc, {
      hosts: { loopbackOnly: true, origins: ['https://studio.example.org'] },
    })
    try {
      const headers = await proxied.signInAs('designer')
      const proxiedPort = new URL(proxied.base).port
      const ws = await connectWs(`ws://127.0.0.1:${proxiedPort}/api/v1/tts/realtime`, null, {
        cookie: headers.cookie,
        host: 'studio.example.org',
        origin: 'https://studio.example.org',
      })
      if (!('socket' in ws)) throw new Error(`refused ${ws.status}`)
      ws.socket.close()
    } finally {
      await proxied.close()
    }
  })
})

describe('CSRF: every state-changing route needs the token, however its path is spelled', () => {
  let studio: RunningStudio
  let designer: BrowserHeaders
  let port: string
  beforeAll(async () => {
    studio = await startStudio(svc)
    designer = await studio.signInAs('designer')
    port = new URL(studio.base).port
  })
  afterAll(async () => {
    await studio?.close()
  })

  const script = JSON.stringify({
    title: 'Encoded',
    settings: { model: SECOND_GEN_MODEL, voice: defaultVoiceFor(SECOND_GEN_MODEL) },
    lines: [{ id: 'ln_000001', text: 'Hello.' }],
  })

  it('refuses an encoded path, an absolute-form target and a text-bodied sign-out without the token', async () => {
    const cookie = designer.cookie
    const json = { cookie, 'content-type': 'application/json' }
    const cases: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }> = [
      { method: 'POST', path: '/%61pi/scripts', headers: json, body: script },
      { method: 'POST', path: '/api/%73cripts', headers: json, body: script },
      { method: 'POST', path: `http://127.0.0.1:${port}/api/scripts`, headers: json, body: script },
      { method: 'PUT', path: '/%61pi/scripts/scr_x', headers: json, body: script },
      { method: 'DELETE', path: '/%61pi/scripts/scr_x', headers: { cookie } },
      {
        method: 'POST',
        path: '/%61pi/auth/sign-out',
        headers: { cookie, 'content-type': 'text/plain' },
        body: 'x',
      },
      {
        method: 'POST',
        path: '/api/auth/sign-out',
        headers: { cookie, 'content-type': 'text/plain' },
        body: 'x',
      },
      { method: 'POST', path: '/%61pi/v1/audio/speech', headers: json, body: '{"input":"hi"}' },
    ]
    for (const c of cases) {
      const answer = await raw(studio.base, c)
      expect(answer.status, `${c.method} ${c.path}`).toBe(403)
      expect(answer.body).toContain('CSRF')
    }
    // Nothing was made: the designer's list is still empty, and the session still works.
    const list = await fetch(`${studio.base}/api/scripts`, { headers: { ...designer } })
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([])
  })

  it('lets the same requests through with the token', async () => {
    const answer = await raw(studio.base, {
      method: 'POST',
      path: '/%61pi/scripts',
      headers: { ...designer, 'content-type': 'application/json' },
      body: script,
    })
    expect(answer.status).toBe(201)
  })
})

describe('sign-in limits hold under concurrency', () => {
  let studio: RunningStudio
  beforeAll(async () => {
    studio = await startStudio(svc, { hashing: { concurrency: 2, queue: 4 } })
    await studio.users.add('target', 'designer', 'the real password')
  })
  afterAll(async () => {
    await studio?.close()
  })

  const signIn = (name: string, password: string) =>
    fetch(`${studio.base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password }),
    })

  it('checks at most five of forty wrong passwords sent at once', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => signIn('target', `guess ${i}`)))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(35)
    const limited = answers.find((r) => r.status === 429)
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)
    // The right password is also held back now: the limit is on guesses, not on wrong ones alone.
    expect((await signIn('target', 'the real password')).status).toBe(429)
  })

  it('turns away sign-ins beyond the hashing queue at once with 503, and serves a real one after', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`nobody-${i}`, 'wrong')))
    const statuses = answers.map((r) => r.status)
    expect(statuses.every((s) => s === 401 || s === 503)).toBe(true)
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0)
    const busy = answers.find((r) => r.status === 503)
    expect(busy?.headers.get('retry-after')).toBe('1')
    expect(await busy?.json()).toMatchObject({
      error: { code: 'sign_in_unavailable', message: expect.stringContaining('signing in') },
    })
    await studio.users.add('after', 'reviewer', 'another real password')
    expect((await signIn('after', 'another real password')).status).toBe(200)
  })
})

describe('errors and headers', () => {
  let studio: RunningStudio
  let designer: BrowserHeaders
  beforeAll(async () => {
    studio = await startStudio(svc)
    designer = await studio.signInAs('designer')
  })
  afterAll(async () => {
    await studio?.close()
  })

  it('forbids framing and foreign scripts on every answer', async () => {
    for (const path of ['/api/auth/me', '/api/health', '/api/nothing']) {
      const res = await fetch(`${studio.base}${path}`)
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(res.headers.get('x-frame-options')).toBe('DENY')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('answers malformed and cut-short bodies with 400 in the studio’s shape', async () => {
    const malformed = await fetch(`${studio.base}/api/scripts`, {
      method: 'POST',
      headers: { ...designer, 'content-type': 'application/json' },
      body: '{"title": ',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.any(String) },
    })
    // A speech body shorter than it says, through the proxy: a 400 for the client, not a 500.
    const cut = await new Promise<number>((resolve) => {
      const url = new URL(studio.base)
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/api/v1/audio/speech',
          headers: { ...designer, 'content-type': 'application/json', 'content-length': '500' },
          agent: false,
        },
        (res) => resolve(res.statusCode ?? 0),
      )
      req.on('error', () => resolve(-1))
      req.write('{"input": "half')
      setTimeout(() => req.destroy(), 200)
    })
    // The client left, so it may see no answer at all (-1); the server must still be healthy afterwards.
    expect([400, -1]).toContain(cut)
    expect((await fetch(`${studio.base}/api/auth/me`, { headers: { ...designer } })).status).toBe(200)
  })

  it('keeps studio.db and live recordings in progress readable by the service’s user only', () => {
    const mode = (path: string) => statSync(path).mode & 0o777
    // On PostgreSQL there is no studio.db; live sessions spool their audio in the data directory either way.
    if (studio.db.file) expect(mode(studio.db.file)).toBe(0o600)
    expect(mode(studio.dir)).toBe(0o700)
    expect(mode(join(studio.dir, 'spool'))).toBe(0o700)
  })
})

describe('clients that leave are not errors', () => {
  const logLines: Array<Record<string, unknown>> = []
  let studio: RunningStudio
  let designer: BrowserHeaders
  beforeAll(async () => {
    studio = await startStudio(svc, {
      logger: {
        level: 'info',
        stream: { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
      },
    })
    designer = await studio.signInAs('designer')
  })
  afterAll(async () => {
    await studio?.close()
  })

  it('logs a stream, a body or an upload cut by the client at info at most, never as an error', async () => {
    const before = logLines.length
    const head = (path: string, type: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncookie: ${designer.cookie}\r\n` +
      `x-csrf-token: ${designer['x-csrf-token']}\r\ncontent-type: ${type}\r\ncontent-length: ${length}\r\n\r\n`
    const speech = JSON.stringify({ input: 'A long line to speak. '.repeat(200), response_format: 'pcm' })
    // A speech stream left after its first audio; a JSON body and a multipart upload cut short.
    await rawSocket(studio.base, head('/api/v1/audio/speech', 'application/json', speech.length) + speech, {
      destroyAfterMs: 600,
    })
    await rawSocket(studio.base, `${head('/api/v1/audio/speech', 'application/json', 500)}{"input": "hal`, {
      destroyAfterMs: 200,
    })
    await rawSocket(studio.base, `${head('/api/scripts', 'application/json', 5000)}{"title": "cut`, {
      destroyAfterMs: 200,
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    const lines = logLines.slice(before)
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([])
    // The studio still serves the same user.
    expect((await fetch(`${studio.base}/api/scripts`, { headers: { ...designer } })).status).toBe(200)
  }, 30_000)
})
