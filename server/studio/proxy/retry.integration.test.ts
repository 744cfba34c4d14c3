import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type RunningStudio, startStudio } from '../../testing/studio.ts'
import { DEFAULT_RETRY_POLICY, retryAfterMs, retryDelay } from './retry.ts'

const policy = { maxAttempts: 4, maxTotalMs: 20_000, baseMs: 1000, capMs: 8000 }

describe('retry policy', () => {
  it.each([
    // status, attempt, Retry-After, elapsed, random → delay
    [429, 0, '1', 0, 0, 1000],
    [429, 0, '1', 0, 0.999, 1999],
    [429, 2, '1', 0, 1, 5000],
    [429, 3, '1', 0, 0, null], // fourth attempt was the last
    [429, 1, '3', 0, 0, 3000], // never sooner than Retry-After
    [503, 0, '2', 0, 0, 2000],
    [503, 0, '2', 0, 1, 2250],
    [429, 1, '1', 19_500, 0, null], // would end past the total cap
    [500, 0, '1', 0, 0, null],
    [200, 0, undefined, 0, 0, null],
  ] as const)(
    'status %i attempt %i Retry-After %s elapsed %i random %d → %s',
    (status, attempt, after, elapsed, r, want) => {
      expect(retryDelay(policy, attempt, status, after, elapsed, () => r)).toBe(want)
    },
  )

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000)
    expect(retryAfterMs(undefined)).toBe(1000)
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000)
    expect(retryAfterMs('soon')).toBe(1000)
  })
})

describe('the backend retries upstream 429s before streaming', () => {
  let svc: RunningService
  let studio: RunningStudio
  let noRetry: RunningStudio
  beforeAll(async () => {
    svc = await startSpeechService({ limits: { ttsPerOwner: 1, ttsWaiters: 0 } })
    studio = await startStudio(svc, { retry: { baseMs: 200 } })
    noRetry = await startStudio(svc, { retry: { maxAttempts: 1 } })
  }, 60_000)
  afterAll(async () => {
    await studio?.close()
    await noRetry?.close()
    await svc?.close()
  })

  const speechThrough = async (s: RunningStudio, headers?: Record<string, string>) =>
    fetch(`${s.base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { ...(headers ?? (await s.signInAs('designer'))), 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Short.', voice: 'Bella', response_format: 'pcm' }),
    })

  /** Holds the organization's only slot with a direct stream until `release` is called. */
  async function holdSlot() {
    const abort = new AbortController()
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'A long text. '.repeat(400), voice: 'Bella', response_format: 'pcm' }),
      signal: abort.signal,
    })
    expect(res.status).toBe(200)
    return () => abort.abort()
  }

  it('passes the 429 on, with its request id, when retries are off', async () => {
    const release = await holdSlot()
    try {
      const res = await speechThrough(noRetry)
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('1')
      expect(((await res.json()) as { request_id: string }).request_id).toMatch(/^req_/)
    } finally {
      release()
    }
  }, 30_000)

  it('waits and retries, so a request made while the slot was busy succeeds once it frees', async () => {
    // Signed in first: the request must reach the service while the slot is still held (sign-in takes seconds).
    const designer = await studio.signInAs('designer')
    const release = await holdSlot()
    const pending = speechThrough(studio, { ...designer })
    setTimeout(release, 300)
    const res = await pending
    // 200 with audio: the retried attempt carried the browser's body (a lost body would be a 400 for `input`).
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0)
  }, 30_000)

  it('has a sane default', () => {
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBeGreaterThan(1)
  })
})
