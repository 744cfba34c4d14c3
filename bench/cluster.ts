/**
 * `npm run bench:cluster`: what sharing the limits in Redis costs, and what a second instance brings.
 *
 * 1. The limiter alone, in this process: `ACQUIRES` (default 2,000) acquire/release pairs on the in-process pool and on
 *    the Redis pool (one owner, one slot, so each acquire must see the previous release): p50/p95 of an acquire and of
 *    a whole pair, and the difference — the cost the shared limiter adds per request.
 * 2. The same streaming load through 1, 2 and then 3 speech service processes (`server/speech/main.ts`, one data directory,
 *    one Redis): `LOAD_CLIENTS` (default 12) clients in 4 organizations send one-sentence requests back to back for
 *    `LOAD_SECONDS` (default 15) through the instances in turn: requests per second, time to first byte p50/p95, and
 *    the 200/429/503 counts. Redis at `REDIS_URL` (default redis://127.0.0.1:6379), under a key prefix of its own.
 * 3. The studio path: what the shared session lookup costs (the studio backend reads the session from its database on
 *    every request, so a revocation anywhere holds at once: `LOOKUPS` lookups on studio.db and on PostgreSQL, p50/p95
 *    and the difference), then time to first audio through the studio with 1 and 2 backends — scripts/local-cluster.ts
 *    with two backends and one speech instance on PostgreSQL and Redis: requests through backend A alone, then through
 *    the round-robin front over both, `STUDIO_CLIENTS` (default 2, the organization's concurrent generations) designers for `LOAD_SECONDS` each.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { RedisLimits } from '../server/speech/limits/redis-slots.ts'
import { MemorySlotPool, type SlotPool } from '../server/speech/limits/slots.ts'
import { dropPostgresSchema } from '../server/storage/index.ts'
import { SessionStore } from '../server/studio/auth/sessions.ts'
import { UserStore } from '../server/studio/auth/users.ts'
import { openStudioStorage, type StudioStorage } from '../server/studio/database.ts'
import { keyFromCli } from '../server/testing/keys-cli.ts'
import { freePort } from '../server/testing/ports.ts'
import { startSpeechProcess } from '../server/testing/speech-process.ts'
import { announceSmoke, count } from './smoke.ts'
import { percentile, summary } from './stats.ts'

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
const ACQUIRES = count(2000, 50, 'ACQUIRES')
const LOAD_SECONDS = count(15, 2, 'LOAD_SECONDS')
const LOAD_CLIENTS = count(12, 4, 'LOAD_CLIENTS')
const ORGS = 4
const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the shade.'
const prefix = `bench:cluster:${randomUUID()}:`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const ms = (v: number) => `${v.toFixed(3)} ms`

announceSmoke('bench:cluster')
console.log(
  `bench:cluster — this machine has ${availableParallelism()} cores (2 on the development machines): the instances share them, so CPU, not the limiter, bounds the scaling below.`,
)
// Other work on the machine moves every figure below; say how busy it was.
console.log(`load average at start: ${loadavg()[0]?.toFixed(2)} (1 min)`)

// 1. The limiter alone.
async function measure(pool: SlotPool) {
  const acquire: number[] = []
  const starts: number[] = []
  // The 50 first are warm-up (script loading, JIT).
  for (let i = 0; i < ACQUIRES + 51; i++) {
    const started = performance.now()
    const r = await pool.acquire('bench-owner')
    if (!('slot' in r))
      throw new Error(`the bench's only slot was refused (${r.rejected}): a release was lost`)
    if (i >= 50) {
      acquire.push(performance.now() - started)
      starts.push(started)
    }
    // Not awaited (a slot's release never is): the next acquire, on the same connection, runs after it.
    r.slot.release()
  }
  const pair = starts.slice(1).map((t, i) => t - (starts[i] as number))
  return { acquire: acquire.slice(0, -1), pair }
}

const memory = await measure(new MemorySlotPool(1))
const limits = await RedisLimits.open({ url: REDIS_URL, prefix })
const redis = await measure(limits.pool('tts', 1))
await limits.close()
console.log(
  `\nlimiter alone: ${ACQUIRES} acquire/release pairs, one owner, one slot (each acquire sees the last release)`,
)
console.log(
  `${''.padEnd(22)}${'acquire p50'.padStart(13)}${'p95'.padStart(11)}${'pair p50'.padStart(12)}${'p95'.padStart(11)}`,
)
for (const [name, r] of [
  ['in-process', memory],
  ['Redis (shared)', redis],
] as const) {
  console.log(
    `${name.padEnd(22)}${ms(percentile(r.acquire, 50)).padStart(13)}${ms(percentile(r.acquire, 95)).padStart(11)}${ms(percentile(r.pair, 50)).padStart(12)}${ms(percentile(r.pair, 95)).padStart(11)}`,
  )
}
const added = percentile(redis.pair, 50) - percentile(memory.pair, 50)
console.log(`added per request by the shared limiter: ${ms(added)} p50 (aim: at most 1 ms)`)

// 2. Streaming load through 1, 2 and 3 instances.
const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
const children: ChildProcess[] = []

async function startInstance(): Promise<string> {
  const instance = await startSpeechProcess(`instance ${children.length + 1}`, dir, {
    REDIS_URL,
    SPEECH_REDIS_PREFIX: prefix,
  })
  children.push(instance.child)
  return instance.url
}

const createKey = (org: string) => keyFromCli(org, dir)

async function load(urls: string[], keys: string[], requests = Number.POSITIVE_INFINITY) {
  const counts = new Map<number, number>()
  const firstBytes: number[] = []
  let sent = 0
  const started = performance.now()
  const deadline = started + LOAD_SECONDS * 1000
  await Promise.all(
    Array.from({ length: Math.min(LOAD_CLIENTS, requests) }, async (_, client) => {
      const apiKey = keys[client % keys.length] as string
      while (performance.now() < deadline && sent < requests) {
        const url = urls[sent++ % urls.length] as string
        const t0 = performance.now()
        const res = await fetch(`${url}/v1/audio/speech`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ model: 'svc-tts-mini-0.8', input: SENTENCE, response_format: 'pcm' }),
        })
        let firstByte = Number.NaN
        for await (const _ of res.body ?? []) if (Number.isNaN(firstByte)) firstByte = performance.now() - t0
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1)
        if (res.status === 200) firstBytes.push(firstByte)
        // Turned away: back off for Retry-After (1 s), as the contract asks of clients.
        else await sleep(1000)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  return { counts, firstBytes, seconds }
}

try {
  // The first key creates the database; the rest can then be made side by side.
  const keys = [await createKey('bench-0')]
  keys.push(...(await Promise.all(Array.from({ length: ORGS - 1 }, (_, i) => createKey(`bench-${i + 1}`)))))
  const urls = [await startInstance()]
  console.log(
    `\nstreaming load: ${LOAD_CLIENTS} clients in ${ORGS} organizations (2 generations each at once), one sentence each, ${LOAD_SECONDS} s; limits in Redis`,
  )
  for (const n of [1, 2, 3]) {
    while (urls.length < n) urls.push(await startInstance())
    // One request per instance first: a fresh instance's first answer (encoders, caches) is not the load's.
    for (const url of urls) await load([url], keys.slice(0, 1), 1)
    const r = await load(urls, keys)
    console.log(
      `${`${n} instance${n > 1 ? 's' : ''}`.padEnd(12)}${(r.counts.get(200) ?? 0) / r.seconds > 0 ? ((r.counts.get(200) ?? 0) / r.seconds).toFixed(1) : '0.0'} req/s served; TTFB ${summary(r.firstBytes, 0)}; 200 × ${r.counts.get(200) ?? 0}, 429 × ${r.counts.get(429) ?? 0}, 503 × ${r.counts.get(503) ?? 0}`,
    )
  }
  const inspect = new Redis(REDIS_URL)
  await sleep(300)
  let held = 0
  for (const key of await inspect.keys(`${prefix}*:leases`)) held += await inspect.zcard(key)
  console.log(`leases still held in Redis at the end: ${held}`)
  const leftovers = await inspect.keys(`${prefix}*`)
  if (leftovers.length) await inspect.del(...leftovers)
  await inspect.quit()
} finally {
  for (const child of children) child.kill('SIGTERM')
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)))
  rmSync(dir, { recursive: true, force: true })
}

// 3. The studio path.
const LOOKUPS = count(2000, 50, 'LOOKUPS')
// Two: the organization's concurrent generations (contract 8), so the figure is the path's, not a queue's.
const STUDIO_CLIENTS = count(2, 2, 'STUDIO_CLIENTS')
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'

async function lookups(storage: StudioStorage): Promise<number[]> {
  const sessions = new SessionStore(storage)
  const user = await new UserStore(storage).add('bench', 'designer', 'a long bench password')
  const { token } = await sessions.create(user.id)
  const times: number[] = []
  for (let i = 0; i < LOOKUPS + 50; i++) {
    const t0 = performance.now()
    if (!(await sessions.get(token))) throw new Error('the bench session was not found')
    if (i >= 50) times.push(performance.now() - t0) // the first 50 warm up
  }
  return times
}

const studioDir = mkdtempSync(join(tmpdir(), 'bench-cluster-studio-'))
const schema = `bench_sessions_${randomUUID().slice(0, 8)}`
try {
  const sqliteStorage = await openStudioStorage({ dataDir: studioDir })
  const onSqlite = await lookups(sqliteStorage)
  await sqliteStorage.close()
  const pgStorage = await openStudioStorage({ dataDir: studioDir, databaseUrl: DATABASE_URL, schema })
  const onPostgres = await lookups(pgStorage)
  await pgStorage.close()
  console.log(`\nsession lookup per studio request (${LOOKUPS} lookups, one indexed query, never cached)`)
  console.log(`studio.db   ${summary(onSqlite, 3)}`)
  console.log(`PostgreSQL  ${summary(onPostgres, 3)}`)
  console.log(
    `added per request by the shared lookup: ${ms(percentile(onPostgres, 50) - percentile(onSqlite, 50))} p50 (aim: at most 1 ms; nothing is cached, so a sign-out or password change holds on every instance at the next request)`,
  )
} finally {
  await dropPostgresSchema(DATABASE_URL, schema)
  rmSync(studioDir, { recursive: true, force: true })
}

/** scripts/local-cluster.ts with `studios` backends and one speech instance; resolves once its front answers. */
async function startCluster(port: number, name: string, user: { name: string; password: string }) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/local-cluster.ts',
      ...['--port', String(port), '--studios', '2', '--speech', '1', '--name', name, '--fresh'],
      ...['--user', `${user.name}:designer:${user.password}`],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  )
  const deadline = Date.now() + 180_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('the cluster did not start')
    const up = await fetch(`http://127.0.0.1:${port}/api/health`)
      .then((r) => r.ok)
      .catch(() => false)
    if (up) return child
    await sleep(500)
  }
  child.kill('SIGTERM')
  throw new Error('the cluster did not answer in time')
}

async function throughStudio(base: string, cookie: Record<string, string>) {
  const firstAudio: number[] = []
  let refused = 0
  const deadline = performance.now() + LOAD_SECONDS * 1000
  await Promise.all(
    Array.from({ length: STUDIO_CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now()
        const res = await fetch(`${base}/api/v1/audio/speech`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...cookie },
          body: JSON.stringify({ model: 'svc-tts-mini-0.8', input: SENTENCE, response_format: 'pcm' }),
        })
        let first = Number.NaN
        for await (const _ of res.body ?? []) if (Number.isNaN(first)) first = performance.now() - t0
        if (res.status === 200) firstAudio.push(first)
        else refused += 1
      }
    }),
  )
  return { firstAudio, refused }
}

const clusterPort = await freePort()
const clusterName = `bench_${randomUUID().slice(0, 8)}`
const designer = { name: 'bench_designer', password: 'bench designer password' }
const cluster = await startCluster(clusterPort, clusterName, designer)
try {
  const front = `http://127.0.0.1:${clusterPort}`
  const backendA = `http://127.0.0.1:${clusterPort + 1}`
  const signIn = await fetch(`${front}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(designer),
  })
  const { csrfToken } = (await signIn.json()) as { csrfToken: string }
  const session = {
    cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
    'x-csrf-token': csrfToken,
  }
  await throughStudio(front, session) // warm both backends and the service
  console.log(
    `\ntime to first audio through the studio: ${STUDIO_CLIENTS} designers, one sentence each, back to back, ${LOAD_SECONDS} s (one speech instance; sessions in PostgreSQL, limits in Redis)`,
  )
  for (const [label, base] of [
    ['1 backend', backendA],
    ['2 backends', front],
  ] as const) {
    const r = await throughStudio(base, session)
    console.log(`${label.padEnd(12)}${summary(r.firstAudio, 0)}; not served: ${r.refused}`)
  }
  console.log(
    `(the round-robin front adds one loopback hop; with ${availableParallelism()} cores shared by the service and both backends, a second backend cannot add CPU)`,
  )
} finally {
  cluster.kill('SIGTERM')
  await new Promise((r) => cluster.once('exit', r))
  await dropPostgresSchema(DATABASE_URL, `${clusterName}_studio`)
  await dropPostgresSchema(DATABASE_URL, `${clusterName}_speech`)
}
