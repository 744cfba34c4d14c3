import type { Generated, Kysely } from 'kysely'
import { sql } from 'kysely'
import { type BlobChunkRow, createBlobTable } from '../storage/blobs.ts'
import {
  createStorage,
  type Dialect,
  openStorage,
  type Storage,
  type StorageMigration,
} from '../storage/index.ts'

/**
 * The studio backend's own state — settings, users, sessions, the audit trail, saved transcripts and their label
 * edits, scripts — in `DATA_DIR/studio.db` (SQLite, the default) or, with `DATABASE_URL`, in PostgreSQL in the schema
 * `studio` (server/storage). The audio of saved transcripts (`transcript_audio`, chunked: server/storage/blobs.ts) and of
 * takes (`take_audio`) is in the database too, so every instance serves every recording.
 */

export interface StudioTables {
  settings: { name: string; value: string }
  users: {
    id: Generated<number>
    name: string
    role: string
    password_hash: string
    created_at: number
  }
  sessions: {
    token_hash: string
    user_id: number | null
    csrf_token: string
    created_at: number
    expires_at: number
  }
  audit_events: {
    id: Generated<number>
    at: number
    user_name: string
    user_role: string
    kind: 'consent' | 'voice'
    action: 'created' | 'deleted' | 'revoked'
    upstream_id: string
    name: string | null
    consent_id: string | null
  }
  consent_requests: {
    id: string
    /** SHA-256 of the link's token (hex); the token itself is never stored. */
    token_hash: string
    owner_name: string
    language: string
    created_by: string
    created_by_role: string
    created_at: number
    expires_at: number
    status: 'open' | 'used' | 'revoked'
    /** While an owner's recording is being sent: who holds the link (a random id) and until when. */
    claim: string | null
    claimed_until: number | null
    used_at: number | null
    revoked_at: number | null
    /** The consent the owner recorded through the link. */
    consent_id: string | null
  }
  transcripts: {
    id: string
    name: string
    source: 'upload' | 'live'
    created_at: number
    created_by: string
    audio_file: string
    audio_type: string
    audio_bytes: number
    duration: number | null
    diarization_status: string | null
    speakers: number
    turns: number
    result: string
    peaks: string | null
  }
  transcript_labels: {
    transcript_id: string
    edits: string
    revision: number
    updated_at: number
    updated_by: string
  }
  scripts: {
    id: string
    owner: string
    title: string
    document: string
    characters: number
    lines: number
    revision: number
    created_at: number
    updated_at: number
  }
  takes: {
    id: string
    owner: string
    script_id: string
    line_id: string
    text: string
    settings: string
    reference: number
    status: 'complete' | 'incomplete'
    final: number
    starred: number
    name: string | null
    time_to_first_audio_ms: number | null
    samples: number
    bytes: number
    created_at: number
    /** The saved voice (`voice_…`) the take was made with, from its settings; null for a built-in voice. */
    voice_id: string | null
    /** The consent that voice was bound to, where the studio knew it. */
    consent_id: string | null
    /** When its audio was erased because the voice or its consent went (milliseconds), and why. */
    erased_at: number | null
    erased_reason: 'consent_revoked' | 'voice_deleted' | 'voice_gone' | null
    /** BS.1770 integrated loudness of the audio, LUFS; null when not measurable or stored before it was measured. */
    loudness_lufs: number | null
  }
  /** A take's audio, sealed with its data key (takes/store.ts); plaintext only before 0012 until the store seals it. */
  take_audio: { take_id: string; pcm: Uint8Array }
  /** Each take's data key, wrapped by the studio's master key (storage/sealing.ts); erasing the audio deletes it. */
  take_keys: { take_id: string; wrapped: Uint8Array }
  take_erasures: {
    id: Generated<number>
    at: number
    owner: string
    takes: number
    voice_id: string
    consent_id: string | null
    reason: 'consent_revoked' | 'voice_deleted' | 'voice_gone'
    by_user: string | null
  }
  transcript_audio: BlobChunkRow
  pronunciations: {
    id: string
    /** `pronunciationKey` (schema/pronunciations.ts): unique, so one word and case rule has one entry. */
    match_key: string
    text: string
    say_as: string
    phonemes: string | null
    case_sensitive: number
    created_by: string
    created_at: number
    updated_at: number
  }
}

export type StudioDb = Kysely<StudioTables>
export type StudioStorage = Storage<StudioTables>

/** Whole numbers: SQLite's INTEGER is 64-bit; PostgreSQL's needs `bigint` for millisecond times. */
const int = (dialect: Dialect) => (dialect === 'postgres' ? 'bigint' : 'integer')

/**
 * The studio's migrations. The first five create exactly the tables and columns of the five numbered migrations that
 * studio.db had before the shared storage layer (counted in `user_version`), so an older studio.db is adopted as it
 * is (server/storage). Never edit one that has shipped; add the next.
 */
export const STUDIO_MIGRATIONS: Record<string, StorageMigration> = {
  '0001_settings': {
    async up(db) {
      await db.schema
        .createTable('settings')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute()
    },
  },
  '0002_users_sessions': {
    async up(db, dialect) {
      let users = db.schema.createTable('users')
      users =
        dialect === 'postgres'
          ? users
              .addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity())
              .addColumn('name', 'text', (c) => c.notNull())
          : users
              .addColumn('id', 'integer', (c) => c.primaryKey())
              // Names are unique whatever their case: SQLite's NOCASE here, a unique index on lower(name) below.
              .addColumn('name', 'text', (c) => c.notNull().unique().modifyEnd(sql`collate nocase`))
      await users
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .execute()
      if (dialect === 'postgres')
        await db.schema
          .createIndex('users_name_lower')
          .on('users')
          .unique()
          .expression(sql`lower(name)`)
          .execute()
      await db.schema
        .createTable('sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('expires_at', int(dialect), (c) => c.notNull())
        .execute()
      if (dialect === 'postgres') {
        // SQLite scans its small table; a shared database keeps many instances' sessions.
        await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute()
        await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute()
      }
    },
  },
  // The audit trail of consents and voices created and deleted through the studio (server/studio/audit/routes.ts).
  '0003_audit_events': {
    async up(db, dialect) {
      await db.schema
        .createTable('audit_events')
        .addColumn('id', int(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
        )
        .addColumn('at', int(dialect), (c) => c.notNull())
        .addColumn('user_name', 'text', (c) => c.notNull())
        .addColumn('user_role', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('consent', 'voice')`))
        .addColumn('action', 'text', (c) =>
          c.notNull().check(sql`action IN ('created', 'deleted', 'revoked')`),
        )
        .addColumn('upstream_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('consent_id', 'text')
        .execute()
      await db.schema.createIndex('audit_events_upstream').on('audit_events').column('upstream_id').execute()
      await db.schema.createIndex('audit_events_consent').on('audit_events').column('consent_id').execute()
    },
  },
  // Saved transcripts (transcripts/store.ts): the service's result as it came, never updated; the reviewers' label
  // edits in their own table; the audio in DATA_DIR/transcripts/ until 0007 moved it into the database.
  '0004_transcripts': {
    async up(db, dialect) {
      await db.schema
        .createTable('transcripts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull().check(sql`source IN ('upload', 'live')`))
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('audio_file', 'text', (c) => c.notNull())
        .addColumn('audio_type', 'text', (c) => c.notNull())
        .addColumn('audio_bytes', int(dialect), (c) => c.notNull())
        .addColumn('duration', dialect === 'postgres' ? 'double precision' : 'real')
        .addColumn('diarization_status', 'text')
        .addColumn('speakers', 'integer', (c) => c.notNull())
        .addColumn('turns', 'integer', (c) => c.notNull())
        .addColumn('result', 'text', (c) => c.notNull())
        .addColumn('peaks', 'text')
        .execute()
      await db.schema.createIndex('transcripts_created').on('transcripts').column('created_at').execute()
      await db.schema
        .createTable('transcript_labels')
        .addColumn('transcript_id', 'text', (c) =>
          c.primaryKey().references('transcripts.id').onDelete('cascade'),
        )
        .addColumn('edits', 'text', (c) => c.notNull())
        // Any revision a client names must compare without error, so as wide as a JSON number's integers.
        .addColumn('revision', int(dialect), (c) => c.notNull())
        .addColumn('updated_at', int(dialect), (c) => c.notNull())
        .addColumn('updated_by', 'text', (c) => c.notNull())
        .execute()
    },
  },
  // Voice designers' scripts (scripts/store.ts): each owner's own, saved whole under a revision counter.
  '0005_scripts': {
    async up(db, dialect) {
      await db.schema
        .createTable('scripts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('characters', 'integer', (c) => c.notNull())
        .addColumn('lines', 'integer', (c) => c.notNull())
        .addColumn('revision', int(dialect), (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('updated_at', int(dialect), (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('scripts_owner_updated')
        .on('scripts')
        .columns(['owner', 'updated_at'])
        .execute()
    },
  },
  // Take history (takes/store.ts): each owner's takes of their scripts' lines. The audio is in the database, apart
  // from the metadata so listing never reads it, so that every backend instance serves every take.
  '0006_takes': {
    async up(db, dialect) {
      await db.schema
        .createTable('takes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('script_id', 'text', (c) => c.notNull().references('scripts.id').onDelete('cascade'))
        .addColumn('line_id', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull())
        .addColumn('reference', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('complete', 'incomplete')`))
        .addColumn('final', 'integer', (c) => c.notNull())
        .addColumn('starred', 'integer', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('time_to_first_audio_ms', int(dialect))
        .addColumn('samples', int(dialect), (c) => c.notNull())
        .addColumn('bytes', int(dialect), (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .execute()
      await db.schema
        .createIndex('takes_owner_created')
        .on('takes')
        .columns(['owner', 'created_at'])
        .execute()
      await db.schema.createIndex('takes_script').on('takes').columns(['script_id', 'line_id']).execute()
      // One starred take per line, held by the database so two instances starring at once cannot both win.
      await db.schema
        .createIndex('takes_one_starred')
        .on('takes')
        .columns(['script_id', 'line_id'])
        .unique()
        .where(sql.ref('starred'), '=', 1)
        .execute()
      await db.schema
        .createTable('take_audio')
        .addColumn('take_id', 'text', (c) => c.primaryKey().references('takes.id').onDelete('cascade'))
        .addColumn('pcm', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .execute()
    },
  },
  // Transcript recordings in the database (server/storage/blobs.ts) instead of DATA_DIR/transcripts/, so every backend
  // instance serves every recording. Files of an older studio are moved in at start (TranscriptStore.adoptFiles).
  '0007_transcript_audio': {
    async up(db, dialect) {
      await createBlobTable(db, dialect, 'transcript_audio')
    },
  },
  // Lineage (takes/lineage.ts): which saved voice, and consent, each take was made with, so revoking it erases the
  // take's audio while its row stays as the record; and the audit trail's counts of what was erased, per owner.
  '0008_take_lineage': {
    async up(db, dialect) {
      await db.schema.alterTable('takes').addColumn('voice_id', 'text').execute()
      await db.schema.alterTable('takes').addColumn('consent_id', 'text').execute()
      await db.schema.alterTable('takes').addColumn('erased_at', int(dialect)).execute()
      await db.schema.alterTable('takes').addColumn('erased_reason', 'text').execute()
      await db.schema.createIndex('takes_voice').on('takes').column('voice_id').execute()
      await db.schema.createIndex('takes_consent').on('takes').column('consent_id').execute()
      // Existing takes: the saved voice from the stored request, its consent from the trail's creation of it.
      const voiceOfSettings =
        dialect === 'postgres'
          ? sql`(settings::jsonb -> 'voice' ->> 'id')`
          : sql`json_extract(settings, '$.voice.id')`
      await sql`UPDATE takes SET voice_id = ${voiceOfSettings} WHERE substr(${voiceOfSettings}, 1, 6) = 'voice_'`.execute(
        db,
      )
      await sql`UPDATE takes SET consent_id = (
        SELECT a.consent_id FROM audit_events a
        WHERE a.upstream_id = takes.voice_id AND a.kind = 'voice' AND a.action = 'created'
        ORDER BY a.id DESC LIMIT 1
      ) WHERE voice_id IS NOT NULL`.execute(db)
      await db.schema
        .createTable('take_erasures')
        .addColumn('id', int(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey(),
        )
        .addColumn('at', int(dialect), (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('takes', 'integer', (c) => c.notNull())
        .addColumn('voice_id', 'text', (c) => c.notNull())
        .addColumn('consent_id', 'text')
        .addColumn('reason', 'text', (c) =>
          c.notNull().check(sql`reason IN ('consent_revoked', 'voice_deleted', 'voice_gone')`),
        )
        .addColumn('by_user', 'text')
        .execute()
      await db.schema.createIndex('take_erasures_voice').on('take_erasures').column('voice_id').execute()
    },
  },
  // The studio's lexicon (pronunciations/store.ts), shared by its designers: the studio is the workspace.
  '0009_pronunciations': {
    async up(db, dialect) {
      await db.schema
        .createTable('pronunciations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('match_key', 'text', (c) => c.notNull().unique())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('say_as', 'text', (c) => c.notNull())
        .addColumn('phonemes', 'text')
        .addColumn('case_sensitive', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('updated_at', int(dialect), (c) => c.notNull())
        .execute()
    },
  },
  // Each take's integrated loudness (core/loudness.ts), measured as it is stored, for the loudness-matched A/B. Takes
  // stored before stay null: the page measures them from their audio when it arrives.
  '0010_take_loudness': {
    async up(db, dialect) {
      await db.schema
        .alterTable('takes')
        .addColumn('loudness_lufs', dialect === 'postgres' ? 'double precision' : 'real')
        .execute()
    },
  },
  // Remote consent (consent-requests/): one-time links an owner records their consent through, kept hashed. A used
  // one names its consent, which is how the audit trail tells a consent recorded remotely (audit_events, a table of
  // the numbered releases, stays as it was).
  '0011_consent_requests': {
    async up(db, dialect) {
      await db.schema
        .createTable('consent_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('owner_name', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_by_role', 'text', (c) => c.notNull())
        .addColumn('created_at', int(dialect), (c) => c.notNull())
        .addColumn('expires_at', int(dialect), (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status IN ('open', 'used', 'revoked')`))
        .addColumn('claim', 'text')
        .addColumn('claimed_until', int(dialect))
        .addColumn('used_at', int(dialect))
        .addColumn('revoked_at', int(dialect))
        .addColumn('consent_id', 'text')
        .execute()
      await db.schema
        .createIndex('consent_requests_open')
        .on('consent_requests')
        .columns(['status', 'created_at'])
        .execute()
    },
  },
  // Crypto-shredding of take audio (docs/security.md, "Erasure"): each take's data key, wrapped by the master key,
  // deleted with the take or its audio. Audio stored before is sealed by the store when it opens (takes/store.ts).
  '0012_take_keys': {
    async up(db, dialect) {
      await db.schema
        .createTable('take_keys')
        .addColumn('take_id', 'text', (c) => c.primaryKey().references('takes.id').onDelete('cascade'))
        .addColumn('wrapped', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .execute()
    },
  },
}

/** studio.db before the storage layer counted five numbered migrations in user_version; those are the first five here. */
const LEGACY_USER_VERSIONS = 5

export interface StudioStorageOptions {
  dataDir: string
  /** PostgreSQL instead of studio.db (the `DATABASE_URL` setting). */
  databaseUrl?: string | undefined
  /** The PostgreSQL schema of the studio's tables (`STUDIO_DATABASE_SCHEMA`, default `studio`). */
  schema?: string | undefined
}

const storageOptions = (opts: StudioStorageOptions) => ({
  dataDir: opts.dataDir,
  databaseUrl: opts.databaseUrl || undefined,
  file: 'studio.db',
  schema: opts.schema || 'studio',
  migrations: STUDIO_MIGRATIONS,
  legacyUserVersions: LEGACY_USER_VERSIONS,
})

/** Opens the studio's storage and brings its tables up to date. */
export function openStudioStorage(opts: StudioStorageOptions): Promise<StudioStorage> {
  return openStorage<StudioTables>(storageOptions(opts))
}

/**
 * The embedded studio.db in `dir`, returned at once with its migrations under way (`ready`; `createStudio` awaits
 * it). Kept for callers written before the storage layer; new code awaits `openStudioStorage`.
 */
export function openStudioDb(dir: string): StudioStorage {
  return createStorage<StudioTables>(storageOptions({ dataDir: dir }))
}

/** Small persistent settings of the backend, such as the key it provisioned for the embedded service. */
export class Settings {
  constructor(private readonly storage: StudioStorage) {}

  async get(name: string): Promise<string | undefined> {
    const row = await this.storage.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst()
    return row?.value
  }

  async set(name: string, value: string): Promise<void> {
    await this.storage.db
      .insertInto('settings')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value: (eb) => eb.ref('excluded.value') }))
      .execute()
  }
}
