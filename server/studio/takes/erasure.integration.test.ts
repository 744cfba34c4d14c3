import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  defaultVoiceFor,
  type NewTake,
  SECOND_GEN_MODEL,
  scriptDocumentSchema,
} from '../../../schema/index.ts'
import { openStorage } from '../../storage/index.ts'
import { masterKey, Sealer, SealingError } from '../../storage/sealing.ts'
import { TEST_BACKEND } from '../../testing/backends.ts'
import { type TestDatabase, testDatabase } from '../../testing/studio.ts'
import { STUDIO_MIGRATIONS, type StudioStorage, type StudioTables } from '../database.ts'
import { ScriptStore } from '../scripts/store.ts'
import { STUDIO_MASTER_KEY_FILE, studioSealerOf, TakeStore } from './store.ts'

/**
 * Erasure that holds for the bytes of take audio (issue 38, docs/security.md "Erasure"): a take's PCM is stored sealed
 * with its own data key, never as its samples; once its audio is erased or the take deleted, its key row is gone and
 * (SQLite) no file of the data directory, WAL included, holds the key or any 512-byte run of the samples.
 */

const OWNER = 'ana'
const LINE = 'ln_000001'
const VOICE = defaultVoiceFor(SECOND_GEN_MODEL)
const SAVED = `voice_${'a'.repeat(32)}`
const OTHER_SAVED = `voice_${'b'.repeat(32)}`
let dir: string
let database: TestDatabase
let storage: StudioStorage

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'take-erasure-'))
  database = testDatabase()
  storage = await database.open(dir)
})
afterEach(async () => {
  await storage.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** As the studio makes it: the master key from the environment on PostgreSQL, the data directory's file on SQLite. */
const sealer = () => studioSealerOf({ dataDir: dir, masterKey: database.masterKey })
const fixed = (seed: number, previous: number[] = []) =>
  new Sealer(
    masterKey(Buffer.alloc(32, seed)),
    previous.map((p) => masterKey(Buffer.alloc(32, p))),
  )

/** Two seconds of 24 kHz PCM16 noise: no file holds any 256 bytes of it by chance. */
const noise = () => randomBytes(24_000 * 2 * 2)

/**
 * Whether any 512-byte run of `pcm` is in `haystack`. Every such run contains a whole 256-byte block at a multiple of
 * 256, so looking for those blocks finds any run (and more).
 */
function holdsRunOf(haystack: Buffer, pcm: Buffer): boolean {
  for (let at = 0; at + 256 <= pcm.length; at += 256)
    if (haystack.indexOf(pcm.subarray(at, at + 256)) >= 0) return true
  return false
}

/** Every file under the data directory (studio.db, its -wal and -shm, the key file), each as one buffer. */
function files(): Buffer[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path))
}
const onDisk = (pcm: Buffer) => files().some((f) => holdsRunOf(f, pcm))
const anywhere = (needle: Uint8Array) => files().some((f) => f.indexOf(Buffer.from(needle)) >= 0)

async function newScript(): Promise<string> {
  const doc = scriptDocumentSchema.parse({
    title: 'Erasure',
    settings: { model: SECOND_GEN_MODEL, voice: VOICE },
    lines: [{ id: LINE, text: 'First line.' }],
  })
  return (await new ScriptStore(storage).create(OWNER, doc)).id
}

const take = (voiceId: string) =>
  ({
    line_id: LINE,
    text: 'First line.',
    settings: { model: SECOND_GEN_MODEL, voice: { id: voiceId } },
    status: 'complete',
    time_to_first_audio_ms: 300,
  }) as NewTake

async function store(takes: TakeStore, scriptId: string, pcm: Buffer, voiceId = SAVED) {
  const created = await takes.create(OWNER, scriptId, take(voiceId), pcm)
  if (!created || created === 'full') throw new Error(`not stored: ${created}`)
  return created.take.id
}

const keyRows = () => storage.db.selectFrom('take_keys').select(['take_id', 'wrapped']).execute()
const storedAudio = async (id: string) =>
  (await storage.db.selectFrom('take_audio').select('pcm').where('take_id', '=', id).executeTakeFirst())?.pcm

describe(`take audio on ${TEST_BACKEND}`, () => {
  it('is sealed: no run of the samples in its column or any file, and it plays back whole', async () => {
    const takes = await TakeStore.open(storage, sealer())
    const pcm = noise()
    const id = await store(takes, await newScript(), pcm)
    expect(holdsRunOf(Buffer.from((await storedAudio(id)) as Uint8Array), pcm)).toBe(false)
    if (storage.dialect === 'sqlite') expect(onDisk(pcm)).toBe(false)
    const back = await takes.audio(OWNER, id)
    expect(back && 'pcm' in back && Buffer.from(back.pcm).equals(pcm)).toBe(true)
    expect((await keyRows()).map((r) => r.take_id)).toEqual([id])
  })

  it('once erased, leaves nothing that opens it: the key row is gone, and from every file with the samples', async () => {
    const takes = await TakeStore.open(storage, sealer())
    const pcm = noise()
    const id = await store(takes, await newScript(), pcm)
    const sealed = Buffer.from((await storedAudio(id)) as Uint8Array)
    const [key] = await keyRows()
    // The search can find what is there: before the erasure the wrapped key is in the files.
    if (storage.dialect === 'sqlite') expect(anywhere(key?.wrapped as Uint8Array)).toBe(true)

    const erased = await takes.erase({ voiceIds: [SAVED] }, 'consent_revoked')
    expect(erased).toMatchObject([{ owner: OWNER, takes: 1 }])
    expect(await keyRows()).toEqual([])
    expect(await storedAudio(id)).toBeUndefined()
    expect(await takes.audio(OWNER, id)).toMatchObject({ erased: { reason: 'consent_revoked' } })
    // A copy of the ciphertext taken before (a backup, a dead tuple) opens only with a key that no longer exists.
    expect(sealed.length).toBeGreaterThan(pcm.length)
    if (storage.dialect === 'sqlite') {
      expect(anywhere(key?.wrapped as Uint8Array)).toBe(false)
      expect(anywhere(sealed.subarray(100, 164))).toBe(false)
      expect(onDisk(pcm)).toBe(false)
    }
  })

  it('deleting a take deletes its key too, with the same traces cleared', async () => {
    const takes = await TakeStore.open(storage, sealer())
    const scriptId = await newScript()
    const pcm = noise()
    const id = await store(takes, scriptId, pcm)
    const kept = await store(takes, scriptId, noise(), OTHER_SAVED)
    const [key] = (await keyRows()).filter((r) => r.take_id === id)
    expect(await takes.delete(OWNER, id)).toBe(true)
    expect((await keyRows()).map((r) => r.take_id)).toEqual([kept])
    expect(await takes.audio(OWNER, id)).toBeUndefined()
    if (storage.dialect === 'sqlite') {
      expect(anywhere(key?.wrapped as Uint8Array)).toBe(false)
      expect(onDisk(pcm)).toBe(false)
    }
    expect(await takes.audio(OWNER, kept)).toHaveProperty('pcm')
  })

  it('a take dropped for the caps loses its key, with the same traces cleared', async () => {
    const takes = await TakeStore.open(storage, sealer(), { maxTakes: 1, maxBytes: 10_000_000 })
    const scriptId = await newScript()
    const pcm = noise()
    const id = await store(takes, scriptId, pcm)
    const [key] = await keyRows()
    const created = await takes.create(OWNER, scriptId, take(OTHER_SAVED), noise())
    expect(created && created !== 'full' && created.dropped.map((d) => d.id)).toEqual([id])
    expect((await keyRows()).map((r) => r.take_id)).not.toContain(id)
    if (storage.dialect === 'sqlite') {
      expect(anywhere(key?.wrapped as Uint8Array)).toBe(false)
      expect(onDisk(pcm)).toBe(false)
    }
  })
})

describe('the studio master key', () => {
  it.runIf(TEST_BACKEND === 'postgres')(
    'is shared from the environment: an instance with its own data directory plays what another stored',
    async () => {
      const takes = await TakeStore.open(storage, sealer())
      const pcm = noise()
      const id = await store(takes, await newScript(), pcm)
      const elsewhere = mkdtempSync(join(tmpdir(), 'take-erasure-other-'))
      try {
        const other = await TakeStore.open(
          storage,
          studioSealerOf({ dataDir: elsewhere, masterKey: database.masterKey }),
        )
        const back = await other.audio(OWNER, id)
        expect(back && 'pcm' in back && Buffer.from(back.pcm).equals(pcm)).toBe(true)
        // Without it, that instance would have made a key of its own, and is refused.
        await expect(TakeStore.open(storage, studioSealerOf({ dataDir: elsewhere }))).rejects.toThrow(
          /STUDIO_MASTER_KEY/,
        )
      } finally {
        rmSync(elsewhere, { recursive: true, force: true })
      }
    },
  )

  it('on SQLite without STUDIO_MASTER_KEY, is made in the data directory, mode 0600', async () => {
    const takes = await TakeStore.open(storage, studioSealerOf({ dataDir: dir }))
    expect(takes).toBeDefined()
    expect(statSync(join(dir, STUDIO_MASTER_KEY_FILE)).mode & 0o777).toBe(0o600)
  })

  it('another key is refused, naming STUDIO_MASTER_KEY; a rotation rewraps every take key', async () => {
    const first = await TakeStore.open(storage, fixed(1))
    const pcm = noise()
    const id = await store(first, await newScript(), pcm)
    await expect(TakeStore.open(storage, fixed(2))).rejects.toThrow(SealingError)
    await expect(TakeStore.open(storage, fixed(2))).rejects.toThrow(/STUDIO_MASTER_KEY/)

    const rotated = await TakeStore.open(storage, fixed(2, [1]))
    expect((await keyRows()).map((r) => Sealer.masterIdOf(r.wrapped))).toEqual([fixed(2).current.id])
    // The old key is no longer needed, and no longer accepted.
    const after = await TakeStore.open(storage, fixed(2))
    const back = await after.audio(OWNER, id)
    expect(back && 'pcm' in back && Buffer.from(back.pcm).equals(pcm)).toBe(true)
    expect(await rotated.audio(OWNER, id)).toHaveProperty('pcm')
    await expect(TakeStore.open(storage, fixed(1))).rejects.toThrow(/STUDIO_MASTER_KEY/)
  })
})

describe('migration 0012 (take keys) on a studio database with takes in the clear', () => {
  it('seals them at open: the plaintext is gone from the column and every file, the take plays back', async () => {
    // A data directory and database of the release before, instead of this test's fresh ones.
    await storage.close()
    await database.drop()
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    const before = Object.fromEntries(Object.entries(STUDIO_MIGRATIONS).filter(([name]) => name < '0012'))
    const old = await openStorage<StudioTables>({
      dataDir: dir,
      file: 'studio.db',
      databaseUrl: database.env.DATABASE_URL || undefined,
      schema: database.env.STUDIO_DATABASE_SCHEMA || 'studio',
      migrations: before,
    })
    const pcm = noise()
    await sql`INSERT INTO scripts (id, owner, title, document, characters, lines, revision, created_at, updated_at)
      VALUES ('sc_1', ${OWNER}, 't', '{}', 1, 1, 1, 1, 1)`.execute(old.db)
    await sql`INSERT INTO takes (id, owner, script_id, line_id, text, settings, reference, status, final, starred,
      name, time_to_first_audio_ms, samples, bytes, created_at) VALUES ('tk_old', ${OWNER}, 'sc_1', ${LINE}, 'Hi.',
      '{}', 0, 'complete', 0, 0, NULL, NULL, ${pcm.length / 2}, ${pcm.length}, 1)`.execute(old.db)
    await old.db.insertInto('take_audio').values({ take_id: 'tk_old', pcm }).execute()
    await old.close()
    if (database.backend === 'sqlite') expect(onDisk(pcm)).toBe(true)

    storage = await database.open(dir)
    const takes = await TakeStore.open(storage, sealer())
    expect((await keyRows()).map((r) => r.take_id)).toEqual(['tk_old'])
    expect(holdsRunOf(Buffer.from((await storedAudio('tk_old')) as Uint8Array), pcm)).toBe(false)
    if (storage.dialect === 'sqlite') expect(onDisk(pcm)).toBe(false)
    const back = await takes.audio(OWNER, 'tk_old')
    expect(back && 'pcm' in back && Buffer.from(back.pcm).equals(pcm)).toBe(true)
    // Opening again seals nothing twice.
    await TakeStore.open(storage, sealer())
    const again = await takes.audio(OWNER, 'tk_old')
    expect(again && 'pcm' in again && Buffer.from(again.pcm).equals(pcm)).toBe(true)
  })
})
