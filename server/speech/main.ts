import { DEFAULT_SPEECH_PORT, dataDir, envPort, LOOPBACK, parseFlags } from '../config.ts'
import { redactingLogger } from '../logging.ts'
import { createSpeechService, limitsFromEnv } from './app.ts'
import { sharedLimitsFromEnv } from './limits/pools.ts'

/** `npm run speech -- --port N --data DIR [--host H]`: the local speech service on its own. */
const { flags } = parseFlags(process.argv.slice(2), { port: 'string', data: 'string', host: 'string' })
const port = flags.port ? Number(flags.port) : envPort('SPEECH_PORT', DEFAULT_SPEECH_PORT)
const host = (flags.host as string | undefined) ?? process.env.SPEECH_HOST ?? LOOPBACK

const service = await createSpeechService({
  dataDir: dataDir(flags.data as string | undefined),
  // PostgreSQL with DATABASE_URL (in the schema SPEECH_DATABASE_SCHEMA, default `speech`); else DATA_DIR/speech.db.
  databaseUrl: process.env.DATABASE_URL,
  databaseSchema: process.env.SPEECH_DATABASE_SCHEMA,
  logger: redactingLogger(process.env.LOG_LEVEL ?? 'info'),
  limits: limitsFromEnv(),
  // With REDIS_URL the concurrency limits are leases in Redis, shared by every instance (docs/deploy.md).
  sharedLimits: sharedLimitsFromEnv(),
})
await service.app.listen({ port, host })
// In the background: requests are served meanwhile, the first ones just as fast as later ones once it is done.
void service.warmUp()

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.close().then(() => process.exit(0))
  })
}
