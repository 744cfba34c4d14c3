import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { EMPTY_EDITS, type StoredResult } from '../../schema/index.ts'
import { openDatabase } from '../sqlite.ts'
import { TEST_BACKEND } from '../testing/backends.ts'
import { type TestDatabase, testDatabase } from '../testing/studio.ts'
import { AuditStore } from './audit/store.ts'
import { SessionStore } from './auth/sessions.ts'
import { UserStore } from './auth/users.ts'
import { openStudioStorage, Settings, STUDIO_MIGRATIONS, type StudioStorage } from './database.ts'
import { LEGACY_STUDIO_MIGRATIONS } from './legacy-migrations.fixture.ts'
import { ScriptStore } from './scripts/store.ts'
import { TranscriptStore } from './transcripts/store.ts'

/**
 * The studio's stores on the storage layer (server/storage), on whichever backend this project runs (SQLite by
 * default, PostgreSQL in the `postgres` project): one database opened by several instances at once, case-insensitive
 * names, atomic revision checks; and on SQLite, a studio.db written before the layer adopted with its data.
 */

let dirs: string[] = []
let cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  dirs = []
  cleanups = []
})

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'studio-storage-'))
  dirs.push(dir)
  return dir
}

async function open(database: TestDatabase, dir: string): Promise<StudioStorage> {
  const storage = await database.open(dir)
  cleanups.push(() => storage.close())
  return storage
}

function fresh(): { database: TestDatabase; dir: string } {
  const database = testDatabase()
  cleanups.push(() => database.drop())
  return { database, dir: tempDir() }
}

const result: StoredResult = {
  text: 'Hello there.',
  duration: 1.25,
  segments: [{ id: 0, start: 0, end: 1.25, text: 'Hello there.' }],
} as StoredResult

describe(`studio storage on ${TEST_BACKEND}`, () => {
  it('migrates once when several instances open one database at once', async () => {
    const { database, dir } = fresh()
    const opened = await Promise.all(
      Array.from({ length: TEST_BACKEND === 'postgres' ? 4 : 1 }, () => database.open(dir)),
    )
    for (const s of opened) cleanups.push(() => s.close())
    const [first] = opened as [StudioStorage]
    const done = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(
      first.db,
    )
    expect(done.rows.map((r) => r.name)).toEqual(Object.keys(STUDIO_MIGRATIONS).sort())
    await new Settings(first).set('k', 'v1')
    for (const s of opened) expect(await new Settings(s).get('k')).toBe('v1')
  })

  it('finds names whatever their case and refuses a second one differing only in case', async () => {
    const { database, dir } = fresh()
    const [a, b] = [await open(database, dir), await open(database, dir)]
    const users = new UserStore(a)
    await users.add('Dana', 'designer', 'a long password')
    expect(await new UserStore(b).find('dana')).toMatchObject({ name: 'Dana', role: 'designer' })
    expect(await new UserStore(b).verify('DANA', 'a long password')).toMatchObject({ name: 'Dana' })
    await expect(new UserStore(b).add('dANA', 'reviewer', 'another password')).rejects.toThrow(
      /already exists/,
    )
    await users.add('carl', 'admin', 'a long password')
    expect((await users.list()).map((u) => u.name)).toEqual(['carl', 'Dana'])
    expect(await users.count()).toBe(2)
  })

  it('ends sessions through another instance: password change, removal, sign-out', async () => {
    const { database, dir } = fresh()
    const [a, b] = [await open(database, dir), await open(database, dir)]
    const user = await new UserStore(a).add('rita', 'reviewer', 'a long password')
    const first = await new SessionStore(a).create(user.id)
    const second = await new SessionStore(a).create(user.id)
    expect(await new SessionStore(b).get(first.token)).toMatchObject({
      session: { userId: user.id, csrfToken: first.session.csrfToken },
      user: { name: 'rita', role: 'reviewer' },
    })
    await new SessionStore(b).delete(first.token)
    expect(await new SessionStore(a).get(first.token)).toBeUndefined()
    expect(await new SessionStore(a).get(second.token)).toBeDefined()
    await new UserStore(b).setPassword('RITA', 'the next long password')
    expect(await new SessionStore(a).get(second.token)).toBeUndefined()
    const third = await new SessionStore(a).create(user.id)
    expect(await new UserStore(b).remove('rita')).toBe(true)
    expect(await new SessionStore(a).get(third.token)).toBeUndefined()
    const local = await new SessionStore(a).create(null)
    expect(await new SessionStore(b).get(local.token)).toMatchObject({
      session: { userId: null },
      user: null,
    })
  })

  it('lets exactly one of concurrent label saves on one revision through, on any instance', async () => {
    const { database, dir } = fresh()
    const [a, b] = [await open(database, dir), await open(database, dir)]
    const stores = [new TranscriptStore(a, dir), new TranscriptStore(b, dir)] as const
    await stores[0].insert({
      id: 'tr_one',
      name: 'one.wav',
      source: 'upload',
      createdBy: 'ria',
      audioFile: 'tr_one.wav',
      audioType: 'audio/wav',
      audioBytes: 44,
      result,
    })
    const edits = (n: number) => ({ ...EMPTY_EDITS, names: { SPEAKER_0: `Name ${n}` } })
    for (const basedOn of [0, 1]) {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          stores[i % 2]?.saveLabels('tr_one', edits(i), basedOn, `user${i}`, 1000 + basedOn),
        ),
      )
      expect(outcomes.filter((o) => o && 'saved' in o)).toHaveLength(1)
      expect(outcomes.filter((o) => o && 'conflict' in o)).toHaveLength(7)
      // A revision far past any saved one is just stale, on either engine.
      expect(await stores[0].saveLabels('tr_one', EMPTY_EDITS, 2 ** 40, 'x')).toHaveProperty('conflict')
      for (const o of outcomes)
        if (o && 'conflict' in o) expect(o.conflict.revision).toBeGreaterThanOrEqual(basedOn + 1)
    }
    const saved = await stores[1].get('tr_one')
    expect(saved?.labels).toMatchObject({ revision: 2, updated_at: 1001 })
    expect(saved?.result).toMatchObject(result)
    expect(saved?.created_at).toBeGreaterThan(1_600_000_000_000) // milliseconds survive as numbers
    expect(await stores[0].saveLabels('tr_none', EMPTY_EDITS, 0, 'x')).toBeUndefined()
    expect(await stores[0].saveLabels('tr_none', EMPTY_EDITS, 3, 'x')).toBeUndefined()
    expect(await stores[1].delete('tr_one')).toBe(true)
    expect(await stores[0].summary('tr_one')).toBeUndefined()
  })

  it('keeps the audit trail in order with live origins', async () => {
    const { database, dir } = fresh()
    const audit = new AuditStore(await open(database, dir))
    const who = { user: 'ca', role: 'consent_admin' }
    const consent = await audit.record({
      ...who,
      kind: 'consent',
      action: 'created',
      upstreamId: 'c1',
      name: 'C',
      consentId: null,
    })
    await audit.record({
      ...who,
      kind: 'voice',
      action: 'created',
      upstreamId: 'v1',
      name: 'V',
      consentId: 'c1',
    })
    expect(typeof consent.id).toBe('number')
    expect((await audit.liveVoicesOf('c1')).map((e) => e.upstreamId)).toEqual(['v1'])
    await audit.record({
      ...who,
      kind: 'voice',
      action: 'deleted',
      upstreamId: 'v1',
      name: 'V',
      consentId: 'c1',
    })
    expect((await audit.origins()).map((e) => e.upstreamId)).toEqual(['c1'])
    const page = await audit.list({ limit: 2 })
    expect(page.hasMore).toBe(true)
    expect(page.events.map((e) => e.action)).toEqual(['deleted', 'created'])
    expect((await audit.list({ limit: 5, kind: 'consent' })).events).toHaveLength(1)
  })
})

describe.runIf(TEST_BACKEND === 'sqlite')('studio.db on its own', () => {
  it('is private to the server’s user: the folder 0700, the file 0600', async () => {
    const dir = tempDir()
    const storage = await openStudioStorage({ dataDir: dir })
    cleanups.push(() => storage.close())
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'studio.db')).mode & 0o777).toBe(0o600)
    const sqlite = new Database(join(dir, 'studio.db'), { readonly: true })
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal')
    sqlite.close()
  })

  it('adopts a studio.db written before the storage layer, keeping every row', async () => {
    const dir = tempDir()
    // Written exactly as the studio did: numbered migrations counted in user_version (server/sqlite.ts).
    const legacy = openDatabase(dir, 'studio.db', LEGACY_STUDIO_MIGRATIONS)
    legacy.prepare(`INSERT INTO settings (name, value) VALUES ('embedded_api_key', 'sk_old')`).run()
    legacy
      .prepare(`INSERT INTO users (name, role, password_hash, created_at) VALUES ('Olga', 'admin', 'x', 1)`)
      .run()
    legacy
      .prepare(
        `INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES ('h', 1, 'c', 1, 2)`,
      )
      .run()
    legacy
      .prepare(
        `INSERT INTO audit_events (at, user_name, user_role, kind, action, upstream_id) VALUES (5, 'Olga', 'admin', 'consent', 'created', 'c9')`,
      )
      .run()
    legacy
      .prepare(
        `INSERT INTO transcripts (id, name, source, created_at, created_by, audio_file, audio_type, audio_bytes,
           duration, diarization_status, speakers, turns, result) VALUES
           ('tr_old', 'old.wav', 'upload', 1700000000000, 'Olga', 'tr_old.wav', 'audio/wav', 44, 1.25, NULL, 0, 1, ?)`,
      )
      .run(JSON.stringify(result))
    legacy
      .prepare(
        `INSERT INTO transcript_labels (transcript_id, edits, revision, updated_at, updated_by) VALUES ('tr_old', ?, 3, 7, 'Olga')`,
      )
      .run(JSON.stringify(EMPTY_EDITS))
    legacy
      .prepare(
        `INSERT INTO scripts (id, owner, title, document, characters, lines, revision, created_at, updated_at)
         VALUES ('scr_old', 'Olga', 'Old', ?, 3, 1, 4, 10, 20)`,
      )
      .run(
        JSON.stringify({
          settings: { model: 'svc-tts-2-latest', voice: 'alloy' },
          lines: [{ id: 'ln_000000', text: 'Hi.' }],
        }),
      )
    const legacyLayout = layout(legacy)
    legacy.close()
    const oldRecording = Buffer.concat([Buffer.from('RIFF'), randomBytes(40)])
    mkdirSync(join(dir, 'transcripts'))
    writeFileSync(join(dir, 'transcripts', 'tr_old.wav'), oldRecording)
    writeFileSync(join(dir, 'transcripts', '.tr_gone.wav.1a2b.part'), 'half')

    const storage = await openStudioStorage({ dataDir: dir })
    cleanups.push(() => storage.close())
    expect(await new Settings(storage).get('embedded_api_key')).toBe('sk_old')
    expect(await new UserStore(storage).find('olga')).toMatchObject({ id: 1, name: 'Olga', role: 'admin' })
    expect((await new AuditStore(storage).origins()).map((e) => e.upstreamId)).toEqual(['c9'])
    const transcripts = new TranscriptStore(storage, dir)
    expect(await transcripts.get('tr_old')).toMatchObject({
      created_at: 1700000000000,
      duration: 1.25,
      labels: { revision: 3 },
    })
    // Its recording moves from the old folder into the database, once; a crashed upload's temporary file goes.
    expect(await transcripts.adoptFiles()).toEqual({ adopted: 1, swept: 0 })
    expect(await transcripts.readAudio('tr_old.wav')).toEqual(oldRecording)
    expect(readdirSync(join(dir, 'transcripts'))).toEqual([])
    expect(await transcripts.adoptFiles()).toEqual({ adopted: 0, swept: 0 })
    const scripts = new ScriptStore(storage)
    expect(await scripts.get('Olga', 'scr_old')).toMatchObject({ title: 'Old', revision: 4 })
    // New rows go on from the old ones.
    expect((await new UserStore(storage).add('next', 'designer', 'a long password')).id).toBe(2)
    // The five it had are recorded without running; the later ones ran.
    const done = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(storage.db)
    expect(done.rows).toHaveLength(Object.keys(STUDIO_MIGRATIONS).length)
    await storage.close()
    cleanups.pop()

    // The old tables are unchanged, and a fresh studio.db made by the layer has the very same layout.
    const adopted = new Database(join(dir, 'studio.db'))
    expect(adopted.pragma('user_version', { simple: true })).toBe(5)
    const adoptedLayout = layout(adopted)
    const legacyNames = new Set(legacyLayout.map((t) => t.name))
    expect(adoptedLayout.filter((t) => legacyNames.has(t.name))).toEqual(legacyLayout)
    adopted.close()
    const freshDir = tempDir()
    await (await openStudioStorage({ dataDir: freshDir })).close()
    const made = new Database(join(freshDir, 'studio.db'))
    expect(layout(made)).toEqual(adoptedLayout)
    // Its layout is beyond the old numbered releases', so it carries no counter they would trust.
    expect(made.pragma('user_version', { simple: true })).toBe(0)
    made.close()
  })

  it('adopts a partly migrated studio.db and runs the migrations it lacks', async () => {
    const dir = tempDir()
    openDatabase(dir, 'studio.db', LEGACY_STUDIO_MIGRATIONS.slice(0, 3)).close()
    const storage = await openStudioStorage({ dataDir: dir })
    cleanups.push(() => storage.close())
    await new ScriptStore(storage).list('anyone')
    expect(await new TranscriptStore(storage, dir).list()).toEqual([])
  })

  it('refuses a studio.db from a newer numbered release rather than guess', async () => {
    const dir = tempDir()
    const newer = openDatabase(dir, 'studio.db', [...LEGACY_STUDIO_MIGRATIONS, 'CREATE TABLE later (x)'])
    newer.close()
    await expect(openStudioStorage({ dataDir: dir })).rejects.toThrow(/newer version/)
  })
})

/** Tables with their columns (name, type, not null, key, collation-bearing SQL aside) and the indexes. */
function layout(db: Database.Database) {
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name`,
    )
    .all() as Array<{ name: string }>
  return tables.map(({ name }) => ({
    name,
    columns: (
      db.prepare(`PRAGMA table_info(${name})`).all() as Array<{
        name: string
        type: string
        notnull: number
        pk: number
      }>
    ).map((c) => [c.name, c.type.toLowerCase(), c.notnull, c.pk]),
    indexes: (
      db.prepare(`PRAGMA index_list(${name})`).all() as Array<{
        name: string
        unique: number
        origin: string
      }>
    )
      .map((i) => [i.origin === 'c' ? i.name : i.origin, i.unique])
      .sort(),
    foreignKeys: (
      db.prepare(`PRAGMA foreign_key_list(${name})`).all() as Array<{ table: string; on_delete: string }>
    ).map((f) => [f.table, f.on_delete]),
  }))
}
