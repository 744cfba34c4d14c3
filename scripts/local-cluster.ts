import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { parseFlags } from '../server/config.ts'
import { dropPostgresSchema } from '../server/storage/index.ts'
import { keyFromCli } from '../server/testing/keys-cli.ts'
import { type RoundRobin, startRoundRobin } from '../server/testing/round-robin.ts'

/**
 * The whole product as a cluster on this machine, as docs/deploy.md describes it: M speech service instances and N
 * studio backends on one PostgreSQL database and one Redis, each tier behind a round-robin front (the stand-in for a
 * load balancer that passes WebSockets). The browser opens the studio front; the backends reach the service through
 * the speech front with one organization key.
 *
 *   npx tsx scripts/local-cluster.ts --port 8300 [--studios 2] [--speech 2] [--name cluster] [--fresh]
 *     [--user "NAME:ROLE:PASSWORD" ...]
 *
 * Ports: the studio front on --port, the backends on the next ones, the speech front and instances after them.
 * `--fresh` drops the PostgreSQL schemas (`<name>_studio`, `<name>_speech`) and the Redis keys of `<name>` first.
 * DATABASE_URL and REDIS_URL default to this machine's (127.0.0.1). Ctrl-C or SIGTERM stops every process.
 */

const run = promisify(execFile)
const argv = process.argv.slice(2)
const users = argv.flatMap((arg, i) => (argv[i - 1] === '--user' ? [arg] : []))
const { flags } = parseFlags(
  argv.filter((arg, i) => arg !== '--user' && argv[i - 1] !== '--user'),
  { port: 'string', studios: 'string', speech: 'string', name: 'string', fresh: 'boolean' },
)
const port = Number(flags.port ?? 8300)
const studioCount = Number(flags.studios ?? 2)
const speechCount = Number(flags.speech ?? 2)
const name = (flags.name as string | undefined) ?? 'cluster'
if (!/^[a-z][a-z0-9_]{0,30}$/.test(name)) throw new Error('--name: lower-case letters, digits and _')
const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
const root = join(tmpdir(), `speech-studio-${name}`)
/** The cluster's master key, the same on every start over one root (its database outlives a restart). */
const masterKeyOf = (dir: string) => createHash('sha256').update(`master key of ${dir}`).digest('base64')

const children: ChildProcess[] = []
const fronts: RoundRobin[] = []
let stopping = false
async function stop(code: number) {
  if (stopping) return
  stopping = true
  for (const child of children) child.kill('SIGTERM')
  await Promise.all(fronts.map((f) => f.close()))
  process.exit(code)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stop(0))

const tsx = (script: string, args: string[]) =>
  [process.execPath, ['--import', 'tsx', script, ...args]] as const

function start(label: string, script: string, args: string[], env: Record<string, string>) {
  const [bin, rest] = tsx(script, args)
  const child = spawn(bin, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] })
  child.once('exit', (code, signal) => {
    if (stopping) return
    console.error(`${label} stopped (${signal ?? code}); stopping the cluster`)
    void stop(1)
  })
  children.push(child)
}

async function waitFor(url: string, label: string) {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.status < 500)
      .catch(() => false)
    if (ok) return
    await new Promise((r) => setTimeout(r, 300))
  }
  throw new Error(`${label} did not answer at ${url}`)
}

const shared = {
  DATABASE_URL: databaseUrl,
  REDIS_URL: redisUrl,
  STUDIO_DATABASE_SCHEMA: `${name}_studio`,
  SPEECH_DATABASE_SCHEMA: `${name}_speech`,
  SPEECH_REDIS_PREFIX: `${name}:speech:`,
  // One master key for both speech instances, as a deployment gives every instance (docs/security.md).
  SPEECH_MASTER_KEY: process.env.SPEECH_MASTER_KEY || masterKeyOf(root),
  // And one for both studio backends, which seal take audio with it.
  STUDIO_MASTER_KEY: process.env.STUDIO_MASTER_KEY || masterKeyOf(`${root}/studio`),
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
}

if (flags.fresh) {
  rmSync(root, { recursive: true, force: true })
  await dropPostgresSchema(databaseUrl, shared.STUDIO_DATABASE_SCHEMA)
  await dropPostgresSchema(databaseUrl, shared.SPEECH_DATABASE_SCHEMA)
  const redis = new Redis(redisUrl, { lazyConnect: true })
  await redis.connect()
  const keys = await redis.keys(`${name}:*`)
  if (keys.length > 0) await redis.del(...keys)
  redis.disconnect()
}

// The speech tier: instances with their own data folders (nothing shared but PostgreSQL and Redis), then its front.
const speechPorts = Array.from({ length: speechCount }, (_, i) => port + studioCount + 2 + i)
for (const [i, p] of speechPorts.entries()) {
  const dir = join(root, `speech-${i}`)
  mkdirSync(dir, { recursive: true })
  // The first migrates; the others wait on the migration lock and find nothing to do.
  start(`speech ${i}`, 'server/speech/main.ts', ['--port', String(p), '--data', dir], shared)
}
await Promise.all(speechPorts.map((p, i) => waitFor(`http://127.0.0.1:${p}/health`, `speech ${i}`)))
const speechFront = await startRoundRobin(
  speechPorts.map((p) => `http://127.0.0.1:${p}`),
  port + studioCount + 1,
)
fronts.push(speechFront)

// One organization key for the studio backends, made through the keys CLI on the shared database.
const apiKey = await keyFromCli(name, join(root, 'speech-0'), { ...process.env, ...shared })

// The studio tier: backends behind the front the browser opens; the front's origin is the one they trust.
const studioPorts = Array.from({ length: studioCount }, (_, i) => port + 1 + i)
const studioEnv = {
  ...shared,
  HOST: '127.0.0.1',
  SVC_BASE_URL: speechFront.base,
  SVC_API_KEY: apiKey,
  STUDIO_ORIGIN: `http://127.0.0.1:${port}`,
}
for (const spec of users) {
  const [user, role, ...password] = spec.split(':')
  const add = run(...tsx('server/studio/auth/users-cli.ts', ['add', user ?? '', '--role', role ?? '']), {
    env: { ...process.env, ...studioEnv, DATA_DIR: join(root, 'studio-0') },
  })
  add.child.stdin?.end(`${password.join(':')}\n`)
  await add.catch((err: { stderr?: string }) => {
    // Already there from an earlier run without --fresh: fine.
    if (!/exists/.test(err.stderr ?? '')) throw err
  })
}
for (const [i, p] of studioPorts.entries()) {
  const dir = join(root, `studio-${i}`)
  mkdirSync(dir, { recursive: true })
  start(`studio ${i}`, 'server/main.ts', [], { ...studioEnv, PORT: String(p), DATA_DIR: dir })
}
await Promise.all(studioPorts.map((p, i) => waitFor(`http://127.0.0.1:${p}/api/health`, `studio ${i}`)))
const studioFront = await startRoundRobin(
  studioPorts.map((p) => `http://127.0.0.1:${p}`),
  port,
)
fronts.push(studioFront)

console.log(
  [
    `studio front   ${studioFront.base}  (backends ${studioPorts.join(', ')})`,
    `speech front   ${speechFront.base}  (instances ${speechPorts.join(', ')})`,
    `PostgreSQL     ${databaseUrl}  schemas ${shared.STUDIO_DATABASE_SCHEMA}, ${shared.SPEECH_DATABASE_SCHEMA}`,
    `Redis          ${redisUrl}`,
  ].join('\n'),
)
