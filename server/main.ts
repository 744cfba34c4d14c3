import { join, resolve } from 'node:path'
import { Redis } from 'ioredis'
import { LOOPBACK, loadConfig } from './config.ts'
import { redactingLogger } from './logging.ts'
import { createSpeechService, type SpeechService } from './speech/app.ts'
import { createStudio, type Upstream } from './studio/app.ts'
import { isLoopbackName, parseOrigins } from './studio/auth/host-guard.ts'
import { openStudioStorage, Settings } from './studio/database.ts'

/**
 * `npm start`: the studio backend, with the local speech service embedded unless SVC_BASE_URL points elsewhere.
 * This is the composition root, the one place that knows both parts; the studio itself reaches the service
 * over HTTP only.
 */
const config = loadConfig()
const dir = config.dataDir
const { host, port: studioPort } = config.studio
const logger = redactingLogger(config.logLevel ?? 'warn')

// Where people open the studio; required off loopback, where no name can be trusted by default (studio/auth/host-guard.ts).
const origins = parseOrigins(config.studio.origin)
const loopbackOnly = isLoopbackName(host)
if (!loopbackOnly && origins.length === 0)
  throw new Error(
    `HOST=${host} is not a loopback address: set STUDIO_ORIGIN to the address people open the studio at, e.g. https://studio.example.org`,
  )

// The backend's state: studio.db in the data directory, or PostgreSQL with DATABASE_URL (docs/deploy.md).
const studioDb = await openStudioStorage({
  dataDir: dir,
  databaseUrl: config.databaseUrl,
  schema: config.studio.databaseSchema,
})
const settings = new Settings(studioDb)
// With REDIS_URL the sign-in limit is counted there, shared by every instance; without it, in memory.
// A Redis that cannot be reached at start stops the start; one lost later makes sign-ins answer 503 until it is back.
const redis = config.redisUrl ? await connectRedis(config.redisUrl) : undefined

let speech: SpeechService | undefined
let upstream: Upstream

if (config.studio.upstream) {
  upstream = { ...config.studio.upstream, kind: 'remote' }
} else {
  // The service's state goes where the backend's does: speech.db beside studio.db, or the same PostgreSQL database
  // in its own schema (SPEECH_DATABASE_SCHEMA, default `speech`).
  // With REDIS_URL the concurrency limits are leases in Redis, shared by every instance (docs/deploy.md).
  speech = await createSpeechService({ ...config.speech, logger })
  const speechPort = config.speech.port
  await speech.app.listen({ port: speechPort, host: LOOPBACK })
  // In the background: the first previews are as fast as later ones once it is done (speech/synthesis/warm-up.ts).
  void speech.warmUp()
  const address = speech.app.server.address()
  const port = typeof address === 'object' && address ? address.port : speechPort
  // Provision (once) an organization and key of the embedded service for the backend's own use.
  let apiKey = await settings.get('embedded_api_key')
  if (!apiKey || !(await speech.keys.authenticate(apiKey))) {
    apiKey = (await speech.keys.create({ kind: 'organization', org: 'local', label: 'studio backend' })).key
    await settings.set('embedded_api_key', apiKey)
  }
  upstream = { baseUrl: `http://${LOOPBACK}:${port}`, apiKey, kind: 'embedded' }
}

const studio = await createStudio({
  upstream,
  db: studioDb,
  dataDir: dir,
  ...(redis ? { redis: { client: redis } } : {}),
  // Without users, a loopback studio on the embedded service opens itself to whoever is at this machine — never more.
  autoLocalAdmin: host === LOOPBACK && upstream.kind === 'embedded',
  hosts: { loopbackOnly, origins },
  consentLinkTtlMs: config.studio.consentLinkHours * 3600_000,
  masterKey: config.studio.masterKey,
  previousMasterKeys: config.studio.previousMasterKeys,
  staticDir: resolve('dist'),
  logger,
})
await studio.listen({ port: studioPort, host })
const address = studio.server.address()
const shownPort = typeof address === 'object' && address ? address.port : studioPort
console.log(
  `Speech Studio: http://${host}:${shownPort}/ (speech service: ${upstream.kind}; data: ${join(dir)})`,
)

let closing = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return
    closing = true
    void (async () => {
      await studio.close()
      await speech?.close()
      await studioDb.close()
      redis?.disconnect()
      process.exit(0)
    })()
  })
}

/** Connects to Redis for the sign-in limit; the start fails when it does not answer. */
async function connectRedis(url: string): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    commandTimeout: 2000,
    enableOfflineQueue: false,
  })
  // Said once when it goes away, once when it is back; ioredis reconnects by itself meanwhile.
  let started = false
  let down = false
  let lastError = ''
  client.on('error', (err) => {
    lastError = err.message
    if (started && !down)
      console.warn(`Redis unavailable (${err.message}); sign-ins answer 503 until it is back.`)
    down = true
  })
  client.on('ready', () => {
    if (down) console.warn('Redis is back.')
    down = false
  })
  try {
    await client.connect()
  } catch (err) {
    client.disconnect()
    throw new Error(`REDIS_URL is set but Redis did not answer: ${lastError || (err as Error).message}`)
  }
  started = true
  return client
}
