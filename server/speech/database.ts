import { type Generated, type Kysely, sql } from 'kysely'
import { type BlobChunkRow, createBlobTable } from '../storage/blobs.ts'
import { type Dialect, openStorage, type Storage, type StorageMigration } from '../storage/index.ts'

/**
 * The speech service's durable state — organizations, API keys, consents, saved voices with their audio and
 * embeddings, the session configurations of ephemeral client secrets — in `DATA_DIR/speech.db` (SQLite, the default)
 * or, with `DATABASE_URL`, in PostgreSQL in the schema `speech` (`SPEECH_DATABASE_SCHEMA`), through server/storage.
 *
 * Recordings, samples and embeddings are rows too (`consent_artifacts`, `voice_artifacts`), not files: written in the
 * transaction that creates their consent or voice and deleted by the same cascade that revokes it, so every instance
 * on one PostgreSQL sees them, a revocation removes them everywhere at once, and no crash can leave a row without its
 * audio or audio without its row.
 */

export interface SpeechTables {
  organizations: { id: string; name: string; created_at: number }
  api_keys: {
    id: string
    kind: 'organization' | 'legacy' | 'ephemeral'
    org_id: string | null
    label: string
    hash: string
    prefix: string
    permissions: string
    created_at: number
    expires_at: number | null
    revoked_at: number | null
  }
  consents: {
    seq: Generated<number>
    id: string
    owner_id: string
    name: string
    language: string
    created_at: number
  }
  voices: {
    id: string
    owner_id: string
    name: string
    consent_id: string | null
    language: string
    created_at: number
    prepared_version: string
    prepared: string
  }
  client_secret_sessions: { key_id: string; session: string }
  continuations: { token_hash: string; owner_id: string; request: string; expires_at: number }
  consent_artifacts: ArtifactRow & { consent_id: string }
  voice_artifacts: ArtifactRow & { voice_id: string }
  /** Each consent's and voice's data key, wrapped by the master key (storage/sealing.ts); erasure deletes it. */
  consent_keys: { consent_id: string; wrapped: Uint8Array }
  voice_keys: { voice_id: string; wrapped: Uint8Array }
  /**
   * One row (`name` = `current`): the id of the master key this database's data keys are wrapped by, so a process
   * holding another refuses to start.
   */
  sealing_master: { name: string; master_id: string }
  /**
   * Uploads waiting for or in transcription on the shared queue (transcription/shared-jobs.ts), deleted when the job
   * ends.
   */
  transcription_upload_chunks: BlobChunkRow
}

/**
 * A consent's or voice's audio (16 kHz float32, little-endian) and speaker embedding, each sealed with its data key
 * (voices/voice-store.ts).
 */
interface ArtifactRow {
  audio: Uint8Array
  /** Empty when the embedder gave none. */
  embedding: Uint8Array
  embedder_version: string
}

export type SpeechDb = Kysely<SpeechTables>
export type SpeechStorage = Storage<SpeechTables>

/** Whole numbers: SQLite's INTEGER is 64-bit; PostgreSQL's needs `bigint` for anything that may grow past 2^31. */
const int = (dialect: Dialect) => (dialect === 'postgres' ? 'bigint' : 'integer')
const bytes = (dialect: Dialect) => (dialect === 'postgres' ? 'bytea' : 'blob')

/**
 * The first three create exactly the tables and columns of the three numbered migrations speech.db had before the
 * shared storage layer (counted in `user_version`), so an older speech.db is adopted as it is. Never edit one that
 * has shipped; add the next.
 */
export const SPEECH_MIGRATIONS: Record<string, StorageMigration> = {
  '0001_keys': {
    async up(db, dialect) {
      await db.schema
        .createTable('organizations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .execute()
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('kind', 'text', (c) =>
          c.notNull().check(sql`kind IN ('organization', 'legacy', 'ephemeral')`),
        )
        .addColumn('org_id', 'text', (c) => c.references('organizations.id'))
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('expires_at', int(dialect))
        .addColumn('revoked_at', int(dialect))
        .addCheckConstraint('api_keys_org_by_kind', sql`(kind = 'legacy') = (org_id IS NULL)`)
        .execute()
    },
  },
  // Consents and saved voices (contract 2.3, 2.5, 3). A voice's consent row cascades its deletion, so no voice can
  // outlive its consent.
  '0002_consents_voices': {
    async up(db, dialect) {
      await db.schema
        .createTable('consents')
        .addColumn('seq', int(dialect), (c) =>
          dialect === 'postgres'
            ? c.primaryKey().generatedByDefaultAsIdentity()
            : c.primaryKey().autoIncrement(),
        )
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .execute()
      await db.schema.createIndex('consents_by_owner').on('consents').columns(['owner_id', 'seq']).execute()
      await db.schema
        .createTable('voices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('consent_id', 'text', (c) => c.references('consents.id').onDelete('cascade'))
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('prepared_version', 'text', (c) => c.notNull())
        .addColumn('prepared', 'text', (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('voices_by_owner')
        .on('voices')
        .columns(['owner_id', 'created_at'])
        .execute()
      await db.schema.createIndex('voices_by_consent').on('voices').column('consent_id').execute()
    },
  },
  // The realtime session configuration minted with an ephemeral client secret (POST /v1/realtime/client_secrets),
  // applied when a socket opens with that ek_ credential (access/client-secret-store.ts).
  '0003_client_secret_sessions': {
    async up(db) {
      await db.schema
        .createTable('client_secret_sessions')
        .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
        .addColumn('session', 'text', (c) => c.notNull())
        .execute()
    },
  },
  // Audio and embeddings move from DATA_DIR/voice-store/ into the database; the files an older release left are
  // imported when the voice store opens (voices/legacy-voice-files.ts).
  '0004_artifacts': {
    async up(db, dialect) {
      for (const [table, column, parent] of [
        ['consent_artifacts', 'consent_id', 'consents.id'],
        ['voice_artifacts', 'voice_id', 'voices.id'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn(column, 'text', (c) => c.primaryKey().references(parent).onDelete('cascade'))
          .addColumn('audio', bytes(dialect), (c) => c.notNull())
          .addColumn('embedding', bytes(dialect), (c) => c.notNull())
          .addColumn('embedder_version', 'text', (c) => c.notNull())
          .execute()
      }
    },
  },
  // 303 continuations (synthesis/continuation-store.ts) in the database, so any instance redeems what another issued.
  '0005_continuations': {
    async up(db, dialect) {
      await db.schema
        .createTable('continuations')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('request', 'text', (c) => c.notNull())
        .addColumn('expires_at', int(dialect), (c) => c.notNull())
        .execute()
      await db.schema.createIndex('continuations_expiry').on('continuations').column('expires_at').execute()
    },
  },
  // Transcription uploads queued for any instance (transcription/shared-jobs.ts): the file kept until its job ends.
  '0006_transcription_uploads': {
    async up(db, dialect) {
      await createBlobTable(db, dialect, 'transcription_upload_chunks')
    },
  },
  // Crypto-shredding (docs/security.md): a data key per consent and voice, gone by the same cascade as its row. The
  // artifacts stored before are sealed when the voice store opens.
  '0007_artifact_keys': {
    async up(db, dialect) {
      for (const [table, column, parent] of [
        ['consent_keys', 'consent_id', 'consents.id'],
        ['voice_keys', 'voice_id', 'voices.id'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn(column, 'text', (c) => c.primaryKey().references(parent).onDelete('cascade'))
          .addColumn('wrapped', bytes(dialect), (c) => c.notNull())
          .execute()
      }
      await db.schema
        .createTable('sealing_master')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('master_id', 'text', (c) => c.notNull())
        .execute()
    },
  },
}

/** speech.db before the storage layer counted three numbered migrations in user_version; those are the first three. */
const LEGACY_USER_VERSIONS = 3

export interface SpeechStorageOptions {
  dataDir: string
  /** PostgreSQL instead of speech.db (the `DATABASE_URL` setting). */
  databaseUrl?: string | undefined
  /** The PostgreSQL schema of the service's tables (`SPEECH_DATABASE_SCHEMA`, default `speech`). */
  schema?: string | undefined
}

/**
 * Opens the service's storage and brings its tables up to date. On SQLite, deleted pages are overwritten
 * (`secure_delete`): a revoked recording must not linger in the file's free pages.
 */
export async function openSpeechStorage(opts: SpeechStorageOptions): Promise<SpeechStorage> {
  const storage = await openStorage<SpeechTables>({
    dataDir: opts.dataDir,
    databaseUrl: opts.databaseUrl || undefined,
    file: 'speech.db',
    schema: opts.schema || 'speech',
    migrations: SPEECH_MIGRATIONS,
    legacyUserVersions: LEGACY_USER_VERSIONS,
    applicationName: 'speech-service',
  })
  if (storage.dialect === 'sqlite') await sql`PRAGMA secure_delete = ON`.execute(storage.db)
  return storage
}

/**
 * A round trip to the database and how long it took (health). A database that does not answer within `timeoutMs`
 * counts as unreachable: the pool would otherwise wait its whole connection timeout.
 */
export async function pingDatabase(
  db: SpeechDb,
  timeoutMs = 2000,
): Promise<{ reachable: boolean; latencyMs: number }> {
  const start = performance.now()
  const elapsed = () => Math.round((performance.now() - start) * 100) / 100
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)
  })
  try {
    await Promise.race([sql`SELECT 1`.execute(db), timeout])
    return { reachable: true, latencyMs: elapsed() }
  } catch {
    return { reachable: false, latencyMs: elapsed() }
  } finally {
    clearTimeout(timer)
  }
}
