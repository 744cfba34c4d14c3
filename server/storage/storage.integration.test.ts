import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BACKEND, TEST_DATABASE_URL } from '../testing/backends.ts'
import { dropPostgresSchema, isStorageUnavailable, openStorage, type StorageMigration } from './index.ts'

const dir = mkdtempSync(join(tmpdir(), 'storage-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const migrations: Record<string, StorageMigration> = {
  '0001_a': {
    async up(db) {
      await db.schema.createTable('a').addColumn('x', 'integer').execute()
    },
  },
  '0002_broken': {
    async up(db) {
      await db.schema.createTable('b').addColumn('x', 'integer').execute()
      await sql`SELECT * FROM no_such_table`.execute(db)
    },
  },
}

describe('the storage layer', () => {
  it('says a PostgreSQL that cannot be reached is unavailable (a 503, not a 500)', async () => {
    const err = await openStorage({
      dataDir: dir,
      databaseUrl: 'postgres://postgres@127.0.0.1:1/test',
      file: 'x.db',
      schema: 'x',
      migrations: {},
    }).catch((e: unknown) => e)
    expect(isStorageUnavailable(err)).toBe(true)
    expect(isStorageUnavailable(new Error('syntax error'))).toBe(false)
  })

  it('runs each SQLite migration all or nothing, and names the one that failed', async () => {
    await expect(openStorage({ dataDir: dir, file: 'partial.db', schema: 'x', migrations })).rejects.toThrow(
      /0002_broken/,
    )
    // The first stayed, the second left nothing behind: a fixed release can run it again.
    const storage = await openStorage({
      dataDir: dir,
      file: 'partial.db',
      schema: 'x',
      migrations: {
        '0001_a': migrations['0001_a'] as StorageMigration,
        '0002_broken': {
          async up(db) {
            await db.schema.createTable('b').addColumn('x', 'integer').execute()
          },
        },
      },
    })
    await sql`INSERT INTO b (x) VALUES (1)`.execute(storage.db)
    await storage.close()
  })
})

describe.runIf(TEST_BACKEND === 'postgres')('the storage layer on PostgreSQL', () => {
  it('outlives its connections being cut (a restart, a failover): the next query opens a fresh one', async () => {
    const name = `storage_test_${randomBytes(4).toString('hex')}`
    const storage = await openStorage({
      dataDir: dir,
      databaseUrl: TEST_DATABASE_URL,
      file: 'x.db',
      schema: name,
      applicationName: name,
      migrations: { '0001_a': migrations['0001_a'] as StorageMigration },
    })
    try {
      await sql`INSERT INTO a (x) VALUES (1)`.execute(storage.db)
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
      await admin.connect()
      const cut = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [name],
      )
      await admin.end()
      expect(cut.rowCount).toBeGreaterThan(0)
      await new Promise((r) => setTimeout(r, 100))
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM a`.execute(storage.db)
      expect(rows[0]?.n).toBe(1) // counts come back as numbers
    } finally {
      await storage.close()
      await dropPostgresSchema(TEST_DATABASE_URL, name)
    }
  })
})
