import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { testSharedLimits } from '../../testing/shared-limits.ts'

/**
 * Concurrency slots over real HTTP (contract 7, 8; the waiting policy is in docs/api.md). In the `postgres` project the
 * same suite runs with the limits in Redis (limits/redis-slots.ts), as a deployment with `REDIS_URL` would: one
 * instance must behave exactly as with the in-process limits.
 */
let svc: RunningService

const sharedLimits = testSharedLimits()

beforeAll(async () => {
  svc = await startSpeechService({ limits: { ttsWaitMs: 2000 }, sharedLimits })
})
afterAll(() => svc.close())

const LONG = 'A long sentence keeps the generation slot busy for a while. '.repeat(30)

/** Starts a stream, reads its first bytes and keeps it open; returns a function that cancels it. */
async function openStream(model = 'svc-tts-mini-0.8', key = svc.apiKey): Promise<() => Promise<void>> {
  const controller = new AbortController()
  const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, input: LONG, response_format: 'pcm' }),
    signal: controller.signal,
  })
  expect(res.status).toBe(200)
  await (res.body as ReadableStream<Uint8Array>).getReader().read()
  return async () => controller.abort()
}

function shortRequest(model: string, key = svc.apiKey) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model, input: 'Hi.', response_format: 'pcm' }),
  })
}

describe('TTS concurrency per organization', () => {
  it('rejects a third concurrent 0.8 request with 429 and the rate-limit headers, then frees on disconnect', async () => {
    const cancels = [await openStream(), await openStream()]
    const res = await shortRequest('svc-tts-mini-0.8')
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(res.headers.get('x-ratelimit-limit-concurrent-requests')).toBe('2')
    expect(res.headers.get('x-ratelimit-remaining-concurrent-requests')).toBe('0')
    expect(await res.json()).toMatchObject({
      error: { code: 'rate_limit_exceeded', type: 'rate_limit_error' },
      request_id: expect.stringMatching(/^req_/),
    })
    // Another organization is not affected.
    const other = (await svc.service.keys.create({ kind: 'organization', org: 'other-org' })).key
    expect((await shortRequest('svc-tts-mini-0.8', other)).status).toBe(200)

    for (const cancel of cancels) await cancel()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
    expect((await shortRequest('svc-tts-mini-0.8')).status).toBe(200)
  })

  it('lets a second-generation request wait for a slot, then answers 503 with Retry-After', async () => {
    const cancels = [await openStream('svc-tts-2-latest'), await openStream('svc-tts-2-latest')]
    const started = performance.now()
    const res = await shortRequest('svc-tts-2-latest')
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900)
    for (const cancel of cancels) await cancel()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('serves a waiting second-generation request as soon as a slot frees', async () => {
    const [first, second] = [await openStream('svc-tts-2-latest'), await openStream('svc-tts-2-latest')]
    const waiting = shortRequest('svc-tts-2-latest')
    await new Promise((r) => setTimeout(r, 50))
    await first()
    expect((await waiting).status).toBe(200)
    await second()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('leaves no slot held after many aborted streams', async () => {
    for (let i = 0; i < 100; i++) {
      const controller = new AbortController()
      const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
        body: JSON.stringify({ input: LONG, response_format: 'pcm' }),
        signal: controller.signal,
      })
      if (i % 2 === 0) await (res.body as ReadableStream<Uint8Array>).getReader().read()
      controller.abort()
    }
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => svc.service.synthesizer.stats.busy, { timeout: 10_000 }).toBe(0)
  }, 180_000)

  it('keeps its limits where the deployment says, and /health tells which', async () => {
    const health = (await (await fetch(`${svc.baseUrl}/health`)).json()) as { limits: object }
    expect(health.limits).toMatchObject(
      sharedLimits
        ? { store: 'redis', reachable: true, latency_ms: expect.any(Number) }
        : { store: 'memory' },
    )
  })
})
