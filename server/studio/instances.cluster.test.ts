import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultVoiceFor, SECOND_GEN_MODEL } from '../../schema/index.ts'
import { TEST_BACKEND, TEST_REDIS_URL } from '../testing/backends.ts'
import { meetingFile } from '../testing/meetings.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'
import { type RunningStudio, startStudio } from '../testing/studio.ts'
import { floatToPcm16Wav } from '../wav.ts'
import { RedisSignInLimiter } from './auth/sign-in-limit.ts'

/**
 * Two studio backends on one PostgreSQL database and one Redis, as behind a load balancer (the `postgres` test
 * project): a session made on one is valid on the other, failed sign-ins spread over both count together, the users
 * CLI's `passwd` against the shared database signs the user out of both, and a stale script save through either is
 * refused with 409.
 */

const run = promisify(execFile)
const prefix = `studio-test:${process.pid}:${randomBytes(4).toString('hex')}:`
let svc: RunningService
let a: RunningStudio
let b: RunningStudio

beforeAll(async () => {
  if (TEST_BACKEND !== 'postgres') throw new Error('the cluster suite runs in the postgres project')
  svc = await startSpeechService()
  const redis = { url: TEST_REDIS_URL, prefix }
  const signInLimit = { attempts: 5, windowMs: 60_000 }
  a = await startStudio(svc, { redis, signInLimit })
  b = await startStudio(svc, { redis, signInLimit, share: a })
})
afterAll(async () => {
  await b?.close()
  await a?.close()
  await svc?.close()
})

const signIn = (studio: RunningStudio, name: string, password: string) =>
  fetch(`${studio.base}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password }),
  })
const me = (studio: RunningStudio, cookie: string) =>
  fetch(`${studio.base}/api/auth/me`, { headers: { cookie } }).then((r) => r.status)

describe('two studio backends on one PostgreSQL and one Redis', () => {
  it('count failed sign-ins spread over both together: the sixth attempt is refused on either', async () => {
    await a.users.add('eve', 'designer', 'the right password')
    for (let i = 0; i < 5; i++) expect((await signIn(i % 2 ? b : a, 'eve', 'wrong guess')).status).toBe(401)
    for (const studio of [a, b]) {
      const blocked = await signIn(studio, 'EVE', 'the right password')
      expect(blocked.status).toBe(429)
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // Someone else at the same address is not locked out.
    await b.users.add('sam', 'designer', 'sam password')
    expect((await signIn(a, 'sam', 'sam password')).status).toBe(200)
  })

  it('let at most the limit of concurrent guesses through, whichever instance each reaches', async () => {
    await a.users.add('zed', 'reviewer', 'the right password')
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => signIn(i % 2 ? a : b, 'zed', `guess ${i}`).then((r) => r.status)),
    )
    expect(statuses.filter((s) => s === 401)).toHaveLength(5)
    expect(statuses.filter((s) => s !== 401).every((s) => s === 429)).toBe(true)
  })

  it('share sessions; `passwd` through the users CLI signs the user out of both at once', async () => {
    const headers = await a.signInAs('reviewer', 'rita')
    expect(await me(b, headers.cookie)).toBe(200)
    const fromB = await b.signInAs('reviewer', 'rita')
    expect(await me(a, fromB.cookie)).toBe(200)
    // The real CLI in its own process, on the shared database, the password piped in.
    const cli = run(
      process.execPath,
      ['--import', 'tsx', 'server/studio/auth/users-cli.ts', 'passwd', 'rita', '--data', a.dir],
      { env: { ...process.env, ...a.database.env }, timeout: 120_000 },
    )
    cli.child.stdin?.end('the next long password\n')
    expect((await cli).stdout).toMatch(/sessions are ended/)
    for (const studio of [a, b])
      for (const cookie of [headers.cookie, fromB.cookie]) expect(await me(studio, cookie)).toBe(401)
  })

  it('refuse a stale script save through the other instance with 409, never overwriting', async () => {
    const designerA = await a.signInAs('designer', 'dora')
    const designerB = await b.signInAs('designer', 'dora')
    const script = {
      title: 'Shared',
      settings: { model: SECOND_GEN_MODEL, voice: defaultVoiceFor(SECOND_GEN_MODEL) },
      lines: [{ id: 'ln_000001', text: 'One line.' }],
    }
    const send = (studio: RunningStudio, headers: object, method: string, path: string, body: unknown) =>
      fetch(`${studio.base}/api/scripts${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const created = (await (await send(a, designerA, 'POST', '', script)).json()) as { id: string }
    const fromB = await send(b, designerB, 'PUT', `/${created.id}`, {
      script: { ...script, title: 'Through B' },
      revision: 1,
    })
    expect(fromB.status).toBe(200)
    const stale = await send(a, designerA, 'PUT', `/${created.id}`, {
      script: { ...script, title: 'Through A' },
      revision: 1,
    })
    expect(stale.status).toBe(409)
    expect(await stale.json()).toMatchObject({ script: { title: 'Through B', revision: 2 } })
  })
})

describe('a transcript through two backends', () => {
  it('uploaded through one is reviewed through the other, its recording in byte ranges, and deleted there', async () => {
    const reviewerA: Record<string, string> = { ...(await a.signInAs('reviewer', 'ria')) }
    const reviewerB: Record<string, string> = { ...(await b.signInAs('reviewer', 'ria')) }
    // Four seconds of a real meeting (32-bit float at 16 kHz) as PCM16: what matters is where the bytes are kept.
    const meeting = readFileSync(meetingFile('trn08.wav'))
    const data = meeting.indexOf('data') + 8
    const samples = new Float32Array(
      meeting.buffer.slice(meeting.byteOffset + data, meeting.byteOffset + data + 16_000 * 4 * 4),
    )
    const recording = floatToPcm16Wav(samples, 16_000)
    const form = new FormData()
    form.set('file', new Blob([new Uint8Array(recording)], { type: 'audio/wav' }), 'three seconds.wav')
    const uploaded = await fetch(`${a.base}/api/transcripts`, {
      method: 'POST',
      headers: reviewerA,
      body: form,
    })
    expect(uploaded.status).toBe(200)
    const id = uploaded.headers.get('x-transcript-id') ?? ''
    await uploaded.text() // the stream ends once the transcript is saved

    const whole = await fetch(`${b.base}/api/transcripts/${id}/audio`, { headers: reviewerB })
    expect(whole.status).toBe(200)
    expect(Buffer.from(await whole.arrayBuffer()).equals(recording)).toBe(true)
    const part = await fetch(`${b.base}/api/transcripts/${id}/audio`, {
      headers: { ...reviewerB, range: 'bytes=100000-150000' },
    })
    expect(part.status).toBe(206)
    expect(Buffer.from(await part.arrayBuffer()).equals(recording.subarray(100_000, 150_001))).toBe(true)

    const removed = await fetch(`${b.base}/api/transcripts/${id}`, { method: 'DELETE', headers: reviewerB })
    expect(removed.status).toBe(204)
    expect((await fetch(`${a.base}/api/transcripts/${id}/audio`, { headers: reviewerA })).status).toBe(404)
  })
})

describe('a backend that loses Redis', () => {
  it('refuses sign-ins with 503 and Retry-After, never uncounted, while signed-in people go on', async () => {
    const c = await startStudio(svc, { redis: { url: TEST_REDIS_URL, prefix }, share: a })
    try {
      const signedIn = await c.signInAs('designer', 'nina')
      c.redis?.disconnect()
      const refused = await signIn(c, 'nina', 'correct horse battery')
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('5')
      expect(await me(c, signedIn.cookie)).toBe(200)
    } finally {
      await c.close()
    }
  })
})

describe('the Redis sign-in counter', () => {
  it('admits exactly the limit of concurrent attempts from several connections, and forgets on success', async () => {
    const clients = [new Redis(TEST_REDIS_URL), new Redis(TEST_REDIS_URL)]
    try {
      const limiters = clients.map((c) => new RedisSignInLimiter(c, { attempts: 5, windowMs: 2_000 }, prefix))
      const key = `10.0.0.1\nmallory-${randomBytes(3).toString('hex')}`
      const results = await Promise.all(
        Array.from(
          { length: 30 },
          (_, i) => limiters[i % 2]?.begin(key) as ReturnType<RedisSignInLimiter['begin']>,
        ),
      )
      const admitted = results.filter((r) => r.wait === 0)
      expect(admitted).toHaveLength(5)
      expect(Math.max(...results.map((r) => r.wait))).toBeLessThanOrEqual(2_000)
      // A busy refusal gives its attempt back; a success clears the key.
      await limiters[0]?.cancel(key, admitted[0]?.attempt as string)
      expect((await limiters[1]?.begin(key))?.wait).toBe(0)
      expect((await limiters[1]?.begin(key))?.wait).toBeGreaterThan(0)
      await limiters[0]?.succeed(key)
      expect((await limiters[1]?.begin(key))?.wait).toBe(0)
      // Nothing readable is kept: the key is a hash of the address and name.
      expect((await clients[0]?.keys(`${prefix}*`))?.some((k) => k.includes('mallory'))).toBe(false)
    } finally {
      for (const c of clients) c.disconnect()
    }
  })
})
