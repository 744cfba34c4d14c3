import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'

/** Redirect mode (4.1): at capacity the service answers with a continuation URL that then serves the audio. */
let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService({ limits: { redirectWhenBusy: true, continuationWaitMs: 10_000 } })
})
afterAll(() => svc.close())

const LONG = 'A long sentence keeps the generation slot busy for a while. '.repeat(30)

function speech(input: string, redirect: RequestRedirect = 'follow', signal?: AbortSignal) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
    body: JSON.stringify({ input, response_format: 'pcm' }),
    redirect,
    signal,
  })
}

/** Holds both of the organization's slots until the returned function is called. */
async function fillSlots() {
  const controllers = [new AbortController(), new AbortController()]
  for (const c of controllers) {
    const res = await speech(LONG, 'follow', c.signal)
    await (res.body as ReadableStream<Uint8Array>).getReader().read()
  }
  return () => {
    for (const c of controllers) c.abort()
  }
}

describe('redirect mode', () => {
  it('serves audio directly while there is capacity', async () => {
    const res = await speech('Hello.', 'manual')
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
  })

  it('at capacity, a client that follows redirects gets the audio once a slot frees', async () => {
    const release = await fillSlots()
    const pending = speech('Served by the continuation.')
    setTimeout(release, 300)
    const res = await pending
    expect(res.status).toBe(200)
    expect(res.redirected).toBe(true)
    expect(res.url).toMatch(/\/v1\/audio\/speech\/continuations\/[0-9a-f]{32}$/)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('a client that does not follow gets an empty body and no error, as the contract warns', async () => {
    const release = await fillSlots()
    const res = await speech('Never heard.', 'manual')
    release()
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toMatch(/^\/v1\/audio\/speech\/continuations\//)
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    expect((await res.arrayBuffer()).byteLength).toBe(0)
  })

  it('a continuation is single use and belongs to its owner', async () => {
    const release = await fillSlots()
    const res = await speech('Once.', 'manual')
    release()
    const url = `${svc.baseUrl}${res.headers.get('location')}`
    const other = (await svc.service.keys.create({ kind: 'organization', org: 'other' })).key
    expect((await fetch(url, { headers: { authorization: `Bearer ${other}` } })).status).toBe(404)
    const first = await fetch(url, { headers: { authorization: `Bearer ${svc.apiKey}` } })
    expect(first.status).toBe(200)
    await first.arrayBuffer()
    expect((await fetch(url, { headers: { authorization: `Bearer ${svc.apiKey}` } })).status).toBe(404)
  })

  it('a continuation issued by one instance is served by another on the same database, once', async () => {
    // A second service on the same storage (SQLite file, or PostgreSQL schema), as behind a load balancer.
    const other = await startSpeechService({
      dataDir: svc.dir,
      limits: { redirectWhenBusy: true, continuationWaitMs: 10_000 },
    })
    try {
      const release = await fillSlots()
      const res = await speech('Issued here, heard there.', 'manual')
      release()
      expect(res.status).toBe(303)
      const path = res.headers.get('location')
      const auth = { authorization: `Bearer ${svc.apiKey}` }
      const served = await fetch(`${other.baseUrl}${path}`, { headers: auth })
      expect(served.status).toBe(200)
      expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(10_000)
      expect((await fetch(`${svc.baseUrl}${path}`, { headers: auth })).status).toBe(404)
    } finally {
      await other.close()
    }
  })
})
