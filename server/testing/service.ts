import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSpeechService, type SpeechService, type SpeechServiceOptions } from '../speech/app.ts'
import { speechTestDatabase } from './speech-database.ts'

/** A real local speech service on an ephemeral loopback port with a throwaway data directory, for tests. */
export interface RunningService {
  service: SpeechService
  baseUrl: string
  /** An organization key with every permission. */
  apiKey: string
  /** Its data directory (and so its database: another service started on it shares both). */
  dir: string
  close(): Promise<void>
}

/**
 * With `dataDir`, the service runs on that directory and its database and leaves both in place (restart tests; the
 * test drops the database with `speechTestDatabase(dataDir).drop()`); else on fresh ones, removed on close. The
 * backend is the tests' (server/testing/speech-database.ts).
 */
export async function startSpeechService(opts: Partial<SpeechServiceOptions> = {}): Promise<RunningService> {
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'speech-test-'))
  const database = speechTestDatabase(dir)
  const service = await createSpeechService({ ...database.options, ...opts, dataDir: dir })
  await service.app.listen({ port: 0, host: '127.0.0.1' })
  const address = service.app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return {
    service,
    baseUrl: `http://127.0.0.1:${address.port}`,
    dir,
    apiKey: (await service.keys.create({ kind: 'organization', org: 'test-org' })).key,
    async close() {
      await service.close()
      if (opts.dataDir) return
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Reads an SSE body into its parsed `data:` events, failing on anything that is not a data frame. */
export async function readSse(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text()
  const frames = text.split('\n\n').filter((f) => f.length > 0)
  return frames.map((frame) => {
    if (!frame.startsWith('data: ') || frame.includes('\n'))
      throw new Error(`not a single data line: ${frame}`)
    return JSON.parse(frame.slice(6)) as Record<string, unknown>
  })
}
