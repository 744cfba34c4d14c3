import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keyFromCli } from '../../testing/keys-cli.ts'
import { freePort } from '../../testing/ports.ts'
import { type SpeechProcess, startSpeechProcess } from '../../testing/speech-process.ts'
import { connectWs, type WsTestClient } from '../../testing/ws-client.ts'

/**
 * The contract's concurrency limits (section 8: 2 generations per organization, then 429 or a ~8 s wait and 503; 5
 * transcription sessions) held by two speech service processes together, over HTTP and WebSocket only: each is
 * `server/speech/main.ts` as deployed, on one data directory (SQLite in WAL mode, several processes) and one Redis with
 * a key prefix of this run's own (instance b reaches Redis through a relay the test can cut). Runs in the `postgres`
 * project, whose setup makes sure Redis answers. Algorithm: limits/redis-slots.ts and docs/deploy.md, Shared limits.
 */
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/**
 * Short, so that a killed instance's slot comes back quickly; long enough that a release is told from an expiry, and
 * that a loaded machine still asks about the dead instance's slot before its lease runs out (3 s was not always).
 */
const LEASE_TTL_MS = 5000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Instance = SpeechProcess

const prefix = `test:speech-cluster:${randomUUID()}:`
const dir = mkdtempSync(join(tmpdir(), 'speech-cluster-'))
const instances: Instance[] = []
let apiKey = ''
let inspect: Redis
let proxy: RedisProxy

/**
 * A TCP relay to the test Redis that the test can cut and restore: how instance b loses Redis (and gets it back)
 * without stopping the Redis every other suite shares.
 */
class RedisProxy {
  private server: Server | undefined
  private readonly sockets = new Set<Socket>()
  constructor(readonly port: number) {}

  get url() {
    return `redis://127.0.0.1:${this.port}`
  }

  open(): Promise<void> {
    const target = new URL(REDIS_URL)
    const server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname)
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from)
        from.on('error', () => to.destroy())
        from.on('close', () => {
          this.sockets.delete(from)
          to.destroy()
        })
        from.pipe(to)
      }
    })
    this.server = server
    return new Promise((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()))
  }

  cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}

/** Starts one speech service process and waits until it answers /health. */
async function startInstance(name: string, redisUrl = REDIS_URL): Promise<Instance> {
  return startSpeechProcess(
    name,
    dir,
    { REDIS_URL: redisUrl, SPEECH_REDIS_PREFIX: prefix, SPEECH_LEASE_TTL_MS: String(LEASE_TTL_MS) },
    { startupMs: 45_000, onSpawn: (instance) => instances.push(instance) },
  )
}

const LONG = 'A long sentence keeps the generation slot busy for a while. '.repeat(30)

function speech(instance: Instance, model: string, input: string, signal?: AbortSignal) {
  return fetch(`${instance.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model, input, response_format: 'pcm' }),
    signal,
  })
}

/** Starts a long stream, reads its first bytes and keeps it open; returns its cancel. */
async function openStream(instance: Instance, model = 'svc-tts-mini-0.8'): Promise<() => void> {
  const controller = new AbortController()
  const res = await speech(instance, model, LONG, controller.signal)
  expect(res.status).toBe(200)
  await (res.body as ReadableStream<Uint8Array>).getReader().read()
  return () => controller.abort()
}

/** Leases held in Redis now, over every owner of one pool. */
async function leasesInRedis(pool: 'tts' | 'asr'): Promise<number> {
  const keys = await inspect.keys(`${prefix}${pool}:*:leases`)
  let total = 0
  for (const key of keys) total += await inspect.zcard(key)
  return total
}
const ttsLeasesInRedis = () => leasesInRedis('tts')

/** A realtime transcription socket (contract 4.11); resolves once the session is created, or with its refusal. */
async function transcriptionSocket(instance: Instance): Promise<WsTestClient> {
  const client = await connectWs(`${instance.url.replace('http', 'ws')}/v1/realtime`, apiKey)
  if (!('socket' in client)) throw new Error(`the upgrade was refused: ${JSON.stringify(client)}`)
  await client.next((m) => m.type === 'session.created' || m.type === 'error')
  return client
}

beforeAll(async () => {
  inspect = new Redis(REDIS_URL)
  // The key is made by the service's own CLI on the shared data directory; both instances then know it.
  apiKey = await keyFromCli('cluster', dir)
  proxy = new RedisProxy(await freePort())
  await proxy.open()
  await Promise.all([startInstance('a'), startInstance('b', proxy.url)])
}, 90_000)

afterAll(async () => {
  for (const instance of instances) instance.child.kill('SIGKILL')
  await proxy?.cut()
  const keys = await inspect.keys(`${prefix}*`)
  if (keys.length) await inspect.del(...keys)
  await inspect.quit()
  rmSync(dir, { recursive: true, force: true })
})

describe('generation slots shared by two instances', () => {
  it('refuses the 3rd concurrent generation of an organization with 429 whichever instance it reaches', async () => {
    const [a, b] = instances as [Instance, Instance]
    const cancels = [await openStream(a), await openStream(b)]
    for (const target of [a, b]) {
      const res = await speech(target, 'svc-tts-mini-0.8', 'Hi.')
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBe('1')
      expect(res.headers.get('x-ratelimit-limit-concurrent-requests')).toBe('2')
      expect(res.headers.get('x-ratelimit-remaining-concurrent-requests')).toBe('0')
      expect(await res.json()).toMatchObject({
        error: { code: 'rate_limit_exceeded', type: 'rate_limit_error' },
      })
    }
    expect(await ttsLeasesInRedis()).toBe(2)
    for (const cancel of cancels) cancel()
    await expect.poll(ttsLeasesInRedis, { timeout: 5000 }).toBe(0)
    const again = await speech(b, 'svc-tts-mini-0.8', 'Hi.')
    expect(again.status).toBe(200)
    await again.arrayBuffer()
  })

  it('lets a second-generation request on one instance wait for a slot freed on the other, else 503 after ~8 s', async () => {
    const [a, b] = instances as [Instance, Instance]
    // Every stream opened here is cancelled however the test ends, so a failure (or its retry) leaves no slot held
    // for the tests after it.
    const open: Array<() => void> = []
    try {
      open.push(await openStream(a, 'svc-tts-2-latest'), await openStream(b, 'svc-tts-2-latest'))
      const waiting = speech(a, 'svc-tts-2-latest', 'Hi.')
      await sleep(300)
      const freed = performance.now()
      open[1]?.()
      const served = await waiting
      expect(served.status).toBe(200)
      // Served after the release on the other instance, well before its 8 s wait would have run out.
      expect(performance.now() - freed).toBeLessThan(6000)
      await served.arrayBuffer()

      open.push(await openStream(b, 'svc-tts-2-latest'))
      const started = performance.now()
      const refused = await speech(b, 'svc-tts-2-latest', 'Hi.')
      expect(refused.status).toBe(503)
      expect(refused.headers.get('retry-after')).toBe('1')
      expect(performance.now() - started).toBeGreaterThanOrEqual(7500)
    } finally {
      for (const cancel of open) cancel()
    }
    await expect.poll(ttsLeasesInRedis, { timeout: 5000 }).toBe(0)
  }, 30_000)

  it('leaves no slot held after 200 aborted streams spread over both instances', async () => {
    let next = 0
    const statuses: Record<string, number> = {}
    // Eight clients at once against a limit of two: some requests stream, some are refused, and each is cut at a
    // different moment — before the answer, right after it, or mid-stream.
    const client = async () => {
      while (next < 200) {
        const i = next++
        const controller = new AbortController()
        // Every fourth waits for its answer and leaves right after it, so answers (200 and 429) are seen however
        // slowly a loaded machine synthesizes; the others are cut at a time of their own, often before any answer.
        const timer = i % 4 === 0 ? undefined : setTimeout(() => controller.abort(), (i * 37) % 300)
        try {
          const res = await speech(
            instances[(i + Math.floor(i / 4)) % 2] as Instance,
            'svc-tts-mini-0.8',
            LONG,
            controller.signal,
          )
          statuses[res.status] = (statuses[res.status] ?? 0) + 1
          if (res.status !== 200) await res.arrayBuffer()
          else if (i % 4 === 0) controller.abort()
          else for await (const _ of res.body as ReadableStream<Uint8Array>);
        } catch {
          statuses.aborted = (statuses.aborted ?? 0) + 1
        } finally {
          clearTimeout(timer)
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, client))
    const cut = performance.now()
    // Given back on close, not left to expire: well within the lease TTL.
    await expect.poll(ttsLeasesInRedis, { timeout: LEASE_TTL_MS - 500, interval: 50 }).toBe(0)
    expect(performance.now() - cut).toBeLessThan(LEASE_TTL_MS - 500)
    expect(await inspect.keys(`${prefix}tts:*:queue`)).toEqual([])
    // Streams were really served and really refused along the way.
    expect(statuses[200], JSON.stringify(statuses)).toBeGreaterThan(0)
    expect(statuses[429], JSON.stringify(statuses)).toBeGreaterThan(0)
    for (const instance of instances) {
      const res = await speech(instance, 'svc-tts-mini-0.8', 'Hi.')
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
  }, 120_000)

  it('holds the 5 transcription sessions of an organization across both instances', async () => {
    const [a, b] = instances as [Instance, Instance]
    const sockets: WsTestClient[] = []
    for (const target of [a, b, a, b, a]) sockets.push(await transcriptionSocket(target))
    expect(sockets.every((s) => s.messages.some((m) => m.type === 'session.created'))).toBe(true)
    expect(await leasesInRedis('asr')).toBe(5)
    for (const target of [a, b]) {
      const sixth = await transcriptionSocket(target)
      expect(sixth.messages.find((m) => m.type === 'error')?.error).toMatchObject({
        code: 'rate_limit_exceeded',
        type: 'rate_limit_error',
      })
      expect((await sixth.closed).code).toBe(1000)
      // A WebRTC call is refused before any media, by the same count (contract 7).
      const call = await fetch(`${target.url}/v1/realtime/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/sdp' },
        body: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n',
      })
      expect(call.status).toBe(429)
      expect(call.headers.get('x-ratelimit-limit-concurrent-sessions')).toBe('5')
      expect(call.headers.get('x-ratelimit-remaining-concurrent-sessions')).toBe('0')
      await call.arrayBuffer()
    }
    // One closed on a frees a place for b.
    sockets[0]?.socket.close()
    await expect.poll(() => leasesInRedis('asr'), { timeout: 5000 }).toBe(4)
    const again = await transcriptionSocket(b)
    expect(again.messages.some((m) => m.type === 'session.created')).toBe(true)
    for (const s of [...sockets, again]) s.socket.terminate()
    await expect.poll(() => leasesInRedis('asr'), { timeout: 5000 }).toBe(0)
  }, 30_000)

  it('refuses new work with 503 and says so in /health while its Redis is away, then recovers by itself', async () => {
    const b = instances[1] as Instance
    await expect.poll(ttsLeasesInRedis, { timeout: 5000 }).toBe(0)
    await proxy.cut()
    const refused = await speech(b, 'svc-tts-mini-0.8', 'Hi.')
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBeTruthy()
    expect(await refused.json()).toMatchObject({
      error: { code: 'service_unavailable', type: 'server_error' },
      request_id: expect.stringMatching(/^req_/),
    })
    // A socket already open when admission fails is told in its own error event, and asked to try again later.
    const socket = await transcriptionSocket(b)
    expect(socket.messages.find((m) => m.type === 'error')?.error).toMatchObject({
      code: 'service_unavailable',
      type: 'server_error',
    })
    expect((await socket.closed).code).toBe(1013)
    const health = await fetch(`${b.url}/health`)
    expect(health.status).toBe(503)
    expect(await health.json()).toMatchObject({
      status: 'unavailable',
      limits: { store: 'redis', reachable: false },
    })
    await proxy.open()
    await expect
      .poll(async () => (await fetch(`${b.url}/health`)).status, { timeout: 10_000, interval: 200 })
      .toBe(200)
    const served = await speech(b, 'svc-tts-mini-0.8', 'Hi.')
    expect(served.status).toBe(200)
    await served.arrayBuffer()
  }, 30_000)

  it('gives back the slot of an instance killed with SIGKILL mid-stream within the lease time', async () => {
    const [a, b] = instances as [Instance, Instance]
    await expect.poll(ttsLeasesInRedis, { timeout: 5000 }).toBe(0)
    const onA = await openStream(a)
    const onB = await openStream(b)
    a.child.kill('SIGKILL')
    await new Promise((resolve) => a.child.once('exit', resolve))
    const killed = performance.now()
    onA()
    // The dead instance said no goodbye: its lease still counts...
    const refused = await speech(b, 'svc-tts-mini-0.8', 'Hi.')
    expect(refused.status).toBe(429)
    await refused.arrayBuffer()
    // ...until it expires, within the lease TTL.
    let status = 0
    while (performance.now() - killed < LEASE_TTL_MS + 3000) {
      const res = await speech(b, 'svc-tts-mini-0.8', 'Hi.')
      status = res.status
      await res.arrayBuffer()
      if (status === 200) break
      await sleep(100)
    }
    expect(status).toBe(200)
    expect(performance.now() - killed).toBeLessThan(LEASE_TTL_MS + 1000)
    onB()
    await expect.poll(ttsLeasesInRedis, { timeout: 5000 }).toBe(0)
  }, 30_000)
})
