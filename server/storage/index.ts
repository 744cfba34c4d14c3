import { join } from 'node:path'
import Database from 'better-sqlite3'
import {
  Kysely,
  type Kysely as KyselyType,
  type Migration,
  Migrator,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
} from 'kysely'
import pg from 'pg'
import { closeOff, privateDir, privateFile } from './private-files.ts'

/**
 * The one storage layer of the servers: a Kysely instance on the embedded SQLite file (the default, nothing to
 * install) or on PostgreSQL when a `DATABASE_URL` is given, with one set of migrations written once for both.
 *
 * - SQLite: `DATA_DIR/<file>` in WAL mode, foreign keys on, a 5 s busy timeout; the folder 0700 and the file 0600.
 *   Each migration runs in its own transaction (SQLite's DDL is transactional, though Kysely assumes otherwise).
 * - PostgreSQL: a pool whose connections work in the part's own schema (`search_path`), created when missing, so the
 *   studio and the speech service can share one database without their tables meeting. Migrations run under a
 *   session advisory lock (and Kysely's own), each in a transaction, so several instances may start at once: the
 *   first migrates, the others wait and then find nothing to do. `bigint` columns come back as numbers.
 * - A SQLite database written before this layer (numbered migrations counted in `PRAGMA user_version`) is adopted:
 *   the first `user_version` migrations of the part's list are recorded as done without running — the layer's
 *   migrations create exactly the tables and columns the old ones did — and later ones run as usual.
 */

export type Dialect = 'sqlite' | 'postgres'

/** One migration, written once; `dialect` is there for the few types the two engines spell differently. */
export interface StorageMigration {
  up(db: KyselyType<unknown>, dialect: Dialect): Promise<void>
}

export interface StorageOptions {
  /** Where the SQLite file lives (and, for every backend, the part's other files). */
  dataDir: string
  /** `postgres://…`: use PostgreSQL instead of the SQLite file. Empty or absent: SQLite. */
  databaseUrl?: string | undefined
  /** The SQLite file's name inside `dataDir`, e.g. `studio.db`. */
  file: string
  /** The PostgreSQL schema that holds this part's tables, e.g. `studio`. */
  schema: string
  /** Named migrations, run in the order of their names. */
  migrations: Record<string, StorageMigration>
  /**
   * For a part that kept numbered migrations in `user_version` before: how many of the old migrations there were.
   * A SQLite file at `user_version` n has the first n migrations (by name order) recorded as done without running.
   */
  legacyUserVersions?: number
  /** PostgreSQL pool size (default 10; at least 2, as one connection holds the migration lock). */
  poolSize?: number
  /** How the connections are named in `pg_stat_activity` (default `speech-studio`). */
  applicationName?: string
}

export interface Storage<DB> {
  readonly db: KyselyType<DB>
  readonly dialect: Dialect
  /** The SQLite file; null on PostgreSQL. */
  readonly file: string | null
  /** The PostgreSQL schema; null on SQLite. */
  readonly schema: string | null
  /** Resolves once the migrations have run; rejects when they failed. */
  readonly ready: Promise<void>
  close(): Promise<void>
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** SQLite runs DDL inside transactions; telling Kysely so makes each migration all-or-nothing. */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl() {
    return true
  }
}
class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter() {
    return new TransactionalSqliteAdapter()
  }
}

/** pg returns int8 (counts, bigint columns) as strings by default; every value kept here fits in a double. */
const INT8_OID = 20
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
}

/** A PostgreSQL pool whose connections use `schema` (which need not exist yet). */
export function postgresPool(
  databaseUrl: string,
  schema: string,
  max = 10,
  applicationName = 'speech-studio',
): pg.Pool {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name: ${schema}`)
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    options: `-c search_path=${schema}`,
    types: pgTypes,
    connectionTimeoutMillis: 10_000,
    application_name: applicationName,
  })
  // An idle connection that PostgreSQL drops (a restart, a failover) is an 'error' on the pool, which would end the
  // process if nobody listened; the pool discards it and the next query opens a fresh one.
  pool.on('error', () => {})
  return pool
}

/**
 * Opens the storage and starts its migrations; `ready` says when they are done. Most callers want `openStorage`;
 * this synchronous form is for callers that must hand the storage on before they can await.
 */
export function createStorage<DB>(opts: StorageOptions): Storage<DB> {
  privateDir(opts.dataDir)
  if (opts.databaseUrl) {
    const pool = postgresPool(opts.databaseUrl, opts.schema, opts.poolSize, opts.applicationName)
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
    const ready = migratePostgres(pool, db as KyselyType<unknown>, opts)
    ready.catch(() => {}) // the caller sees the failure through `ready`
    return { db, dialect: 'postgres', file: null, schema: opts.schema, ready, close: () => db.destroy() }
  }
  const file = join(opts.dataDir, opts.file)
  // 0600 before SQLite opens it, so its -wal and -shm files get the same mode; ones left by an older version too.
  privateFile(file)
  for (const suffix of ['-wal', '-shm', '-journal']) closeOff(`${file}${suffix}`)
  const sqlite = new Database(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<DB>({ dialect: new TransactionalSqliteDialect({ database: sqlite }) })
  const ready = migrateSqlite(sqlite, db as KyselyType<unknown>, opts)
  ready.catch(() => {})
  return { db, dialect: 'sqlite', file, schema: null, ready, close: () => db.destroy() }
}

/** Opens the storage and runs its migrations. */
export async function openStorage<DB>(opts: StorageOptions): Promise<Storage<DB>> {
  const storage = createStorage<DB>(opts)
  try {
    await storage.ready
  } catch (err) {
    await storage.close().catch(() => {})
    throw err
  }
  return storage
}

function kyselyMigrations(
  opts: StorageOptions,
  dialect: Dialect,
  adopted: number,
): Record<string, Migration> {
  const names = Object.keys(opts.migrations).sort()
  return Object.fromEntries(
    names.map((name, index) => {
      const migration = opts.migrations[name] as StorageMigration
      // An adopted migration's tables are already there, made by the old numbered migration of the same place.
      const up = index < adopted ? async () => {} : (db: KyselyType<unknown>) => migration.up(db, dialect)
      return [name, { up }]
    }),
  )
}

async function runMigrator(db: KyselyType<unknown>, migrations: Record<string, Migration>, schema?: string) {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    throw new Error(`storage migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    })
  }
}

async function migrateSqlite(sqlite: Database.Database, db: KyselyType<unknown>, opts: StorageOptions) {
  const legacy = opts.legacyUserVersions ?? 0
  const version = sqlite.pragma('user_version', { simple: true }) as number
  if (version > legacy)
    throw new Error(
      `${opts.file} was written by a newer version (user_version ${version}); this one knows ${legacy}.`,
    )
  await runMigrator(db, kyselyMigrations(opts, 'sqlite', version))
  // While the layout is still exactly the old one, keep the old counter in step, so a previous release can still
  // open the file; once a later migration changes it, the counter stays where it was and an old release refuses.
  if (legacy > 0 && version < legacy && Object.keys(opts.migrations).length === legacy)
    sqlite.pragma(`user_version = ${legacy}`)
}

/** Any 64-bit number ("STMIGRAT" in ASCII), shared by every part: their migrations never run at the same time. */
const MIGRATION_LOCK = 0x53_54_4d_49_47_52_41_54n

async function migratePostgres(pool: pg.Pool, db: KyselyType<unknown>, opts: StorageOptions) {
  // One client holds the advisory lock for the whole migration; the pool's others do the work.
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()])
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`)
      await runMigrator(db, kyselyMigrations(opts, 'postgres', 0), opts.schema)
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()])
    }
  } finally {
    client.release()
  }
}

/** True when `err` is a unique-constraint violation on either engine. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  )
}

/** Drops a PostgreSQL schema and everything in it (tests' throwaway schemas). */
export async function dropPostgresSchema(databaseUrl: string, schema: string): Promise<void> {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a schema name: ${schema}`)
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  } finally {
    await client.end()
  }
}

/** Network codes of a database that cannot be reached. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE'])

/**
 * True when `err` says the database cannot answer now (PostgreSQL down, restarting or out of connections; a SQLite
 * file locked past the busy timeout) rather than that the request was wrong: worth a 503 and a retry.
 */
export function isStorageUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null
  if (!e) return false
  const code = e.code ?? ''
  return (
    UNREACHABLE.has(code) ||
    code.startsWith('08') || // connection exceptions
    code === '57P01' || // admin shutdown
    code === '57P03' || // cannot connect now (starting up)
    code === '53300' || // too many connections
    code === 'SQLITE_BUSY' ||
    /Connection terminated|timeout exceeded when trying to connect/.test(e.message ?? '')
  )
}

/**
 * True when the database refused a value itself (PostgreSQL's data exceptions: a number out of range, a NUL in a
 * text) — the request's fault, worth a 400, where SQLite would simply have stored it.
 */
export function isValueRefused(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? ''
  return /^22[0-9A-Z]{3}$/.test(code)
}
