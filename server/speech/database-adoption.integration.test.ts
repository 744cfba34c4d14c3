import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../sqlite.ts'
import { TEST_BACKEND } from '../testing/backends.ts'
import { speechTestDatabase } from '../testing/speech-database.ts'
import { ClientSecretStore } from './access/client-secret-store.ts'
import { KeyStore } from './access/key-store.ts'
import { openSpeechStorage, SPEECH_MIGRATIONS, type SpeechStorage } from './database.ts'
import { LEGACY_SPEECH_MIGRATIONS } from './legacy-migrations.fixture.ts'
import { VoiceStore } from './voices/voice-store.ts'

/**
 * A DATA_DIR written by the release before the storage layer — speech.db at user_version 3, the audio of consents and
 * voices in files under voice-store/ — is adopted in place: every key still works, every consent and voice keeps its
 * audio (now in the database), and the files are gone. SQLite only: that is what such a directory holds.
 */
const dirs: string[] = []
const opened: SpeechStorage[] = []
afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'speech-adopt-'))
  dirs.push(dir)
  return dir
}
async function open(dataDir: string) {
  const storage = await openSpeechStorage({ dataDir })
  opened.push(storage)
  return storage
}

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex')
const floats = (n: number, value: number) => new Float32Array(n).fill(value)
const bytesOf = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
const PARAMS = { espeakVoice: 'en-us+f2', pitch: 60, range: 40, rate: 170 }

/** The files the old voice store wrote for one consent or voice (voice-files.ts of that release). */
function writeArtifactDir(root: string, kind: 'consents' | 'voices', id: string, audio: Float32Array) {
  const dir = join(root, kind, id)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  writeFileSync(join(dir, 'audio.f32'), bytesOf(audio), { mode: 0o600 })
  writeFileSync(join(dir, 'embedding.f32'), bytesOf(floats(4, 0.5)), { mode: 0o600 })
  writeFileSync(join(dir, 'embedder.txt'), 'gmm-1', { mode: 0o600 })
}

/** Tables and their columns, as SQLite describes them (types lower-cased: the old SQL wrote them in capitals). */
function layout(db: Database.Database, tables: string[]) {
  return tables.map((name) => ({
    name,
    columns: (
      db.prepare(`PRAGMA table_info(${name})`).all() as Array<{
        name: string
        type: string
        notnull: number
        pk: number
      }>
    ).map((c) => [c.name, c.type.toLowerCase(), c.notnull, c.pk]),
    foreignKeys: (
      db.prepare(`PRAGMA foreign_key_list(${name})`).all() as Array<{ table: string; on_delete: string }>
    ).map((f) => [f.table, f.on_delete]),
  }))
}
const LEGACY_TABLES = ['organizations', 'api_keys', 'consents', 'voices', 'client_secret_sessions']

describe('a DATA_DIR from before the storage layer', () => {
  it('is adopted in place: keys, consents, voices and their audio survive, the files move into the database', async () => {
    const dir = tempDir()
    // Exactly as the old service wrote it: the numbered migrations (server/sqlite.ts), rows as its stores inserted
    // them, audio files as its voice store published them, plus what a crash could leave (staging, an orphan).
    const legacy = openDatabase(dir, 'speech.db', LEGACY_SPEECH_MIGRATIONS)
    const orgKey = 'sk_old-organization-key'
    const legacyKey = 'sk_old-legacy-key'
    legacy
      .prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)')
      .run('org_old', 'acme', 1)
    const insertKey = legacy.prepare(
      `INSERT INTO api_keys (id, kind, org_id, label, hash, prefix, permissions, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    insertKey.run(
      'key_org',
      'organization',
      'org_old',
      'acme',
      sha256(orgKey),
      'sk_old-',
      '["tts:generate"]',
      1,
      null,
    )
    insertKey.run(
      'key_legacy',
      'legacy',
      null,
      'legacy',
      sha256(legacyKey),
      'sk_old-',
      '["voices:manage"]',
      2,
      null,
    )
    legacy
      .prepare('INSERT INTO consents (id, owner_id, name, language, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('cons_old', 'org_old', 'Ada', 'en-US', 3)
    const insertVoice = legacy.prepare(
      `INSERT INTO voices (id, owner_id, name, consent_id, language, created_at, prepared_version, prepared)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    insertVoice.run('voice_bound', 'org_old', 'Bound', 'cons_old', 'en-US', 4, 'p1', JSON.stringify(PARAMS))
    insertVoice.run('voice_free', 'key_legacy', 'Free', null, 'en-US', 5, 'p1', JSON.stringify(PARAMS))
    const legacyLayout = layout(legacy, LEGACY_TABLES)
    legacy.close()
    const root = join(dir, 'voice-store')
    writeArtifactDir(root, 'consents', 'cons_old', floats(16_000, 0.25))
    writeArtifactDir(root, 'voices', 'voice_bound', floats(8_000, 0.125))
    writeArtifactDir(root, 'voices', 'voice_free', floats(4_000, -0.5))
    writeArtifactDir(root, 'voices', 'voice_orphan', floats(10, 1))
    mkdirSync(join(root, 'staging', 'voice_half'), { recursive: true })

    const storage = await open(dir)
    const keys = new KeyStore(storage)
    expect(await keys.authenticate(orgKey)).toMatchObject({ keyId: 'key_org', ownerId: 'org_old' })
    expect(await keys.authenticate(legacyKey)).toMatchObject({ keyId: 'key_legacy', ownerId: 'key_legacy' })
    const store = await VoiceStore.open(storage, dir)
    expect(existsSync(root)).toBe(false)
    expect(await store.getConsent('org_old', 'cons_old')).toMatchObject({ name: 'Ada', createdAt: 3 })
    expect((await store.listVoices('org_old')).map((v) => v.id)).toEqual(['voice_bound'])
    expect(await store.getVoice('key_legacy', 'voice_free')).toMatchObject({ params: PARAMS })
    const consent = await store.readArtifacts('consents', 'cons_old')
    expect(consent?.audio).toEqual(floats(16_000, 0.25))
    expect(consent?.embedding).toEqual(floats(4, 0.5))
    expect(consent?.embedderVersion).toBe('gmm-1')
    expect((await store.readArtifacts('voices', 'voice_free'))?.audio).toEqual(floats(4_000, -0.5))
    expect(await store.artifactIds('voices')).toEqual(['voice_bound', 'voice_free'])
    // New rows go on from the old ones: the next consent lists first, and client secrets use the tables as before.
    const next = await store.createConsent(
      'org_old',
      { name: 'Bo', language: 'en-US' },
      {
        audio: floats(10, 0),
        embedding: null,
        embedderVersion: 'gmm-1',
      },
    )
    expect((await store.listConsents('org_old', 10))?.data.map((c) => c.id)).toEqual([next.id, 'cons_old'])
    const principal = await keys.authenticate(legacyKey)
    if (!principal) throw new Error('the legacy key no longer works')
    const minted = await new ClientSecretStore(storage, keys).mint(principal, {}, 60)
    expect((await keys.authenticate(minted.value))?.ownerId).toBe('key_legacy')
    // Revoking the adopted consent takes its bound voice and both recordings with it.
    expect(await store.deleteConsent('org_old', 'cons_old')).toBe(true)
    expect(await store.artifactIds('voices')).toEqual(['voice_free'])
    expect(await store.artifactIds('consents')).toEqual([next.id])
    const done = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(
      storage.db,
    )
    expect(done.rows.map((r) => r.name)).toEqual(Object.keys(SPEECH_MIGRATIONS).sort())
    await storage.close()
    opened.pop()

    // The old tables kept their layout, and a fresh speech.db made by the layer has the same one.
    const adopted = new Database(join(dir, 'speech.db'), { readonly: true })
    expect(layout(adopted, LEGACY_TABLES)).toEqual(legacyLayout)
    expect(adopted.pragma('user_version', { simple: true })).toBe(3)
    adopted.close()
    const freshDir = tempDir()
    await (await openSpeechStorage({ dataDir: freshDir })).close()
    const made = new Database(join(freshDir, 'speech.db'), { readonly: true })
    expect(layout(made, LEGACY_TABLES)).toEqual(legacyLayout)
    made.close()
  })

  it('finishes an import a crash interrupted: audio already in the database, its folder still there', async () => {
    const dir = tempDir()
    const legacy = openDatabase(dir, 'speech.db', LEGACY_SPEECH_MIGRATIONS)
    legacy
      .prepare('INSERT INTO consents (id, owner_id, name, language, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('cons_a', 'org_a', 'Ada', 'en-US', 1)
    legacy.close()
    const root = join(dir, 'voice-store')
    writeArtifactDir(root, 'consents', 'cons_a', floats(100, 0.25))
    const first = await open(dir)
    await VoiceStore.open(first, dir)
    await first.close()
    opened.pop()
    // The folder comes back with other bytes (as if the kill had landed before its removal): the row stays as imported.
    writeArtifactDir(root, 'consents', 'cons_a', floats(100, 0.75))
    const storage = await open(dir)
    const store = await VoiceStore.open(storage, dir)
    expect(existsSync(root)).toBe(false)
    expect((await store.readArtifacts('consents', 'cons_a'))?.audio).toEqual(floats(100, 0.25))
  })

  // In the `postgres` project, which has a PostgreSQL to open.
  it.runIf(TEST_BACKEND === 'postgres')(
    'on PostgreSQL, never touches a voice-store folder: its files belong to the SQLite database',
    async () => {
      const dir = tempDir()
      const root = join(dir, 'voice-store')
      writeArtifactDir(root, 'consents', 'cons_sqlite', floats(10, 0.25))
      const database = speechTestDatabase(dir, 'postgres')
      const storage = await database.open()
      try {
        const store = await VoiceStore.open(storage, dir)
        expect(await store.artifactIds('consents')).toEqual([])
        expect(existsSync(join(root, 'consents', 'cons_sqlite', 'audio.f32'))).toBe(true)
      } finally {
        await storage.close()
        await database.drop()
      }
    },
  )
})
