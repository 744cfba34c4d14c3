import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'
import { upstreamLocationToStudio } from './access.ts'

/**
 * A service in redirect mode (4.1) behind the studio: at capacity it answers 303 with a continuation, which the
 * browser follows through the backend without noticing.
 */
let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService({ limits: { redirectWhenBusy: true, continuationWaitMs: 10_000 } })
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
})
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

const LONG = 'A long sentence keeps the generation slot busy for a while. '.repeat(30)

/** Holds both of the organization's generation slots (straight at the service) until the result is called. */
async function fillSlots() {
  const controllers = [new AbortController(), new AbortController()]
  for (const c of controllers) {
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
      body: JSON.stringify({ input: LONG, response_format: 'pcm' }),
      signal: c.signal,
    })
    await (res.body as ReadableStream<Uint8Array>).getReader().read()
  }
  return () => {
    for (const c of controllers) c.abort()
  }
}

function speakThroughStudio(headers: Record<string, string>, redirect: RequestRedirect) {
  return fetch(`${studio.base}/api/v1/audio/speech`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'Served after a redirect.', response_format: 'pcm' }),
    redirect,
  })
}

describe('capacity redirect through the backend', () => {
  it('points the browser at the continuation under /api', async () => {
    const release = await fillSlots()
    try {
      const res = await speakThroughStudio({ ...designer }, 'manual')
      expect(res.status).toBe(303)
      expect(res.headers.get('location')).toMatch(/^\/api\/v1\/audio\/speech\/continuations\/[0-9a-f]{32}$/)
    } finally {
      release()
    }
  })

  it('a browser that follows it gets the audio once a slot frees', async () => {
    const release = await fillSlots()
    const pending = speakThroughStudio({ ...designer }, 'follow')
    setTimeout(release, 300)
    const res = await pending
    expect(res.status).toBe(200)
    expect(res.redirected).toBe(true)
    expect(new URL(res.url).pathname).toMatch(/^\/api\/v1\/audio\/speech\/continuations\//)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
  })

  it('the continuation keeps the access rules: a reviewer may not use it', async () => {
    const reviewer = await studio.signInAs('reviewer')
    const res = await fetch(`${studio.base}/api/v1/audio/speech/continuations/${'a'.repeat(32)}`, {
      headers: { ...reviewer },
    })
    expect(res.status).toBe(403)
  })
})

describe('upstreamLocationToStudio', () => {
  const base = 'http://127.0.0.1:8891'
  it.each([
    ['/v1/audio/speech/continuations/ab', '/api/v1/audio/speech/continuations/ab'],
    [`${base}/v1/audio/speech/continuations/ab?x=1`, '/api/v1/audio/speech/continuations/ab?x=1'],
    ['https://elsewhere.example/v1/x', 'https://elsewhere.example/v1/x'],
    ['/health', '/health'],
  ])('%s → %s', (location, expected) => {
    expect(upstreamLocationToStudio({ location }, base).location).toBe(expected)
  })
})
