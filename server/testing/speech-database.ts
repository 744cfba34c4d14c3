import { createHash } from 'node:crypto'
import { openSpeechStorage, type SpeechStorage } from '../speech/database.ts'
import { dropPostgresSchema } from '../storage/index.ts'
import { TEST_BACKEND, TEST_DATABASE_URL } from './backends.ts'

/**
 * Where a test's speech service keeps its state: the throwaway data directory's speech.db by default, or — under
 * `STUDIO_TEST_DATABASE=postgres`, as the `postgres` project of vite.config.ts runs the storage suites — a schema of
 * its own in `STUDIO_TEST_DATABASE_URL`, named after the data directory. A service restarted on the same directory,
 * or the keys CLI run with `--data` on it, therefore finds the same state on either backend, and parallel test files
 * never meet. A PostgreSQL that cannot be reached fails the tests; it never skips them.
 */
export interface SpeechTestDatabase {
  backend: 'sqlite' | 'postgres'
  /** What createSpeechService takes. */
  options: { databaseUrl?: string; databaseSchema?: string; masterKey?: string }
  /** The environment the service's processes (main.ts, keys-cli.ts) need to use it. */
  env: Record<string, string>
  open(): Promise<SpeechStorage>
  /** Removes the PostgreSQL schema (the SQLite file goes with its directory). */
  drop(): Promise<void>
}

export function speechTestDatabase(dataDir: string, backend = TEST_BACKEND): SpeechTestDatabase {
  if (backend === 'sqlite')
    return {
      backend,
      options: {},
      // A DATABASE_URL in the developer's shell must not send a child process elsewhere.
      env: { DATABASE_URL: '', SPEECH_DATABASE_SCHEMA: '', SPEECH_MASTER_KEY: '' },
      open: () => openSpeechStorage({ dataDir }),
      drop: async () => {},
    }
  const schema = `speech_test_${createHash('sha256').update(dataDir).digest('hex').slice(0, 24)}`
  // Every instance on the schema holds its master key, as a deployment's would from SPEECH_MASTER_KEY.
  const masterKey = createHash('sha256').update(`master key of ${schema}`).digest('base64')
  return {
    backend,
    options: { databaseUrl: TEST_DATABASE_URL, databaseSchema: schema, masterKey },
    env: { DATABASE_URL: TEST_DATABASE_URL, SPEECH_DATABASE_SCHEMA: schema, SPEECH_MASTER_KEY: masterKey },
    open: () => openSpeechStorage({ dataDir, databaseUrl: TEST_DATABASE_URL, schema }),
    drop: () => dropPostgresSchema(TEST_DATABASE_URL, schema),
  }
}
