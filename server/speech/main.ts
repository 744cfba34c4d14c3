import { resolve } from 'node:path'
import { loadConfig, parseFlags } from '../config.ts'
import { redactingLogger } from '../logging.ts'
import { createSpeechService } from './app.ts'

/** `npm run speech -- --port N --data DIR [--host H]`: the local speech service on its own. */
const { flags } = parseFlags(process.argv.slice(2), { port: 'string', data: 'string', host: 'string' })
const config = loadConfig()
const port = flags.port ? Number(flags.port) : config.speech.port
const host = (flags.host as string | undefined) ?? config.speech.host

const service = await createSpeechService({
  ...config.speech,
  ...(flags.data ? { dataDir: resolve(flags.data as string) } : {}),
  logger: redactingLogger(config.logLevel ?? 'info'),
})
await service.app.listen({ port, host })
// In the background: requests are served meanwhile, the first ones just as fast as later ones once it is done.
void service.warmUp()

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void service.close().then(() => process.exit(0))
  })
}
