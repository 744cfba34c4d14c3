import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { type ErrorEnvelope, errorEnvelopeSchema, type Role } from '../../schema/index.ts'
import { dropPostgresSchema } from '../storage/index.ts'
import { createStudio, type StudioOptions } from '../studio/app.ts'
import { UserStore } from '../studio/auth/users.ts'
import { openStudioStorage, type StudioStorage } from '../studio/database.ts'
import { TEST_BACKEND, TEST_DATABASE_URL } from './backends.ts'
import type { RunningService } from './service.ts'

/** One throwaway database for the studio's state, which any number of studios (or CLIs) may open. */
export interface TestDatabase {
  backend: 'sqlite' | 'postgres'
  /** The environment a studio process or the users CLI needs to use it (with `--data` for the SQLite file). */
  env: Record<string, string>
  /** On PostgreSQL, the master key every studio on it holds, as a deployment's would from STUDIO_MASTER_KEY. */
  masterKey?: string
  open(dataDir: string): Promise<StudioStorage>
  /** Removes it (PostgreSQL: drops the schema; the SQLite file goes with its directory). */
  drop(): Promise<void>
}

export function testDatabase(backend = TEST_BACKEND): TestDatabase {
  if (backend === 'sqlite')
    return {
      backend,
      // A DATABASE_URL in the developer's shell must not send the CLI elsewhere.
      env: { DATABASE_URL: '', STUDIO_DATABASE_SCHEMA: '', STUDIO_MASTER_KEY: '' },
      open: (dataDir) => openStudioStorage({ dataDir }),
      drop: async () => {},
    }
  const schema = `studio_test_${process.pid}_${randomBytes(5).toString('hex')}`
  const masterKey = createHash('sha256').update(`master key of ${schema}`).digest('base64')
  return {
    backend,
    env: { DATABASE_URL: TEST_DATABASE_URL, STUDIO_DATABASE_SCHEMA: schema, STUDIO_MASTER_KEY: masterKey },
    masterKey,
    open: (dataDir) => openStudioStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, schema }),
    drop: () => dropPostgresSchema(TEST_DATABASE_URL, schema),
  }
}

/** Fresh storage of the test backend whose `close` also removes it. */
export async function openTestStorage(dataDir: string): Promise<StudioStorage> {
  const database = testDatabase()
  const storage = await database.open(dataDir)
  return {
    ...storage,
    close: async () => {
      await storage.close()
      await database.drop()
    },
  }
}

/** A real studio backend, with its own throwaway state, on an ephemeral loopback port in front of a test service. */
export interface RunningStudio {
  app: FastifyInstance
  base: string
  db: StudioStorage
  /** Its database, which another studio may share (`startStudio(svc, { share })`). */
  database: TestDatabase
  /** Its data directory (transcript audio; the SQLite file). */
  dir: string
  users: UserStore
  /** Its Redis connection, when it counts sign-ins there. */
  redis: Redis | undefined
  /** Signs in (creating the user first) and returns the headers a browser would then send. */
  signInAs(role: Role, name?: string): Promise<BrowserHeaders>
  close(): Promise<void>
}

export interface BrowserHeaders {
  cookie: string
  'x-csrf-token': string
}

export interface TestStudioOptions extends Partial<Omit<StudioOptions, 'upstream' | 'db' | 'redis'>> {
  /** Another instance on the same database and data directory, as behind a load balancer. */
  share?: RunningStudio
  /** Count sign-ins in this Redis, under a key prefix of its own for this test. */
  redis?: { url: string; prefix: string }
}

export async function startStudio(svc: RunningService, opts: TestStudioOptions = {}): Promise<RunningStudio> {
  const { share, redis: redisOptions, ...studioOptions } = opts
  const dir = share?.dir ?? mkdtempSync(join(tmpdir(), 'studio-test-'))
  const database = share?.database ?? testDatabase()
  const db = await database.open(dir)
  const redis = redisOptions
    ? new Redis(redisOptions.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
    : undefined
  await redis?.connect()
  const app = await createStudio({
    upstream: { baseUrl: svc.baseUrl, apiKey: svc.apiKey, kind: 'embedded' },
    db,
    dataDir: dir,
    autoLocalAdmin: false,
    ...(database.masterKey ? { masterKey: database.masterKey } : {}),
    ...(redis && redisOptions ? { redis: { client: redis, prefix: redisOptions.prefix } } : {}),
    ...studioOptions,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  const base = `http://127.0.0.1:${address.port}`
  const users = new UserStore(db)
  return {
    app,
    base,
    db,
    database,
    dir,
    users,
    redis,
    async signInAs(role, name = `${role}-user`) {
      const password = 'correct horse battery'
      if (!(await users.find(name))) await users.add(name, role, password)
      const res = await fetch(`${base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      })
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`)
      return sessionHeaders(res, (await res.json()) as { csrfToken: string })
    },
    async close() {
      await app.close()
      await db.close()
      redis?.disconnect()
      // What is shared belongs to the first instance, which removes it.
      if (!share) {
        await database.drop()
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** The cookie and CSRF token a browser would hold after this response. */
export function sessionHeaders(res: Response, body: { csrfToken: string }): BrowserHeaders {
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  return { cookie, 'x-csrf-token': body.csrfToken }
}

/**
 * The studio backend's refusal in an answer's body, read strictly as the contract's envelope (server/studio/errors.ts):
 * `{ error: { message, type, param, code }, request_id }` and nothing else beside it but `extra` (a 409's saved
 * version). Throws when the body is in another shape.
 */
export async function studioRefusal(res: Response, extra: string[] = []): Promise<ErrorEnvelope['error']> {
  const body = (await res.json()) as Record<string, unknown>
  const unexpected = Object.keys(body).filter((key) => !['error', 'request_id', ...extra].includes(key))
  if (unexpected.length > 0) throw new Error(`not the envelope: also ${unexpected.join(', ')}`)
  const envelope = errorEnvelopeSchema.parse(body)
  if (envelope.error.code === null) throw new Error('a studio refusal without a code')
  return envelope.error
}
