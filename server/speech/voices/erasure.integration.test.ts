import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { masterKey, Sealer, SealingError } from '../../storage/sealing.ts'
import { type SpeechTestDatabase, speechTestDatabase } from '../../testing/speech-database.ts'
import type { SpeechStorage } from '../database.ts'
import { floatBytes, type VoiceArtifacts, VoiceStore } from './voice-store.ts'

/**
 * Erasure that holds for the bytes (issue 38, docs/security.md "Erasure"): a consent's recording and a voice's
 * sample are stored sealed, never as their samples; once revoked, neither their data keys nor anything that opens
 * them is left in any file of the data directory (SQLite: WAL included) or in the key tables (PostgreSQL).
 */

const OWNER = 'org_erasure'
let dir: string
let database: SpeechTestDatabase
let storage: SpeechStorage

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'erasure-'))
  database = speechTestDatabase(dir)
  storage = await database.open()
})
afterEach(async () => {
  await storage.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const sealer = (seed: number, previous: number[] = []) =>
  new Sealer(
    masterKey(Buffer.alloc(32, seed)),
    previous.map((p) => masterKey(Buffer.alloc(32, p))),
  )
const store = (s: Sealer = sealer(1)) => VoiceStore.open(storage, dir, s)

/** Speech-like samples no file holds by chance: random values, so any 64 bytes of them identify them. */
function artifacts(): VoiceArtifacts {
  const audio = new Float32Array(16_000)
  const noise = randomBytes(audio.length * 2)
  for (let i = 0; i < audio.length; i++) audio[i] = (noise.readInt16LE(i * 2) / 32768) * 0.5
  return {
    audio,
    embedding: Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) + i / 1000),
    embedderVersion: 'v',
  }
}

/** Every file under the data directory (the database, its WAL and shared memory, the key file) as one buffer each. */
function files(root: string): Buffer[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path))
}
const anywhere = (needle: Uint8Array) => files(dir).some((f) => f.indexOf(Buffer.from(needle)) >= 0)
/** A stretch from the middle of `samples`: what a search of the disk for the recording would look for. */
const stretch = (samples: Float32Array) => floatBytes(samples).subarray(20_000, 20_064)

const wrappedKeys = async () => {
  const { rows } = await sql<{ wrapped: Uint8Array }>`
    SELECT wrapped FROM consent_keys UNION ALL SELECT wrapped FROM voice_keys`.execute(storage.db)
  return rows.map((r) => Buffer.from(r.wrapped))
}

describe('stored voice data', () => {
  it('is sealed: the samples are in no column, and read back whole with their key', async () => {
    const voices = await store()
    const recording = artifacts()
    const consent = await voices.createConsent(OWNER, { name: 'Ada', language: 'en' }, recording)
    const { rows } = await sql<{ audio: Uint8Array }>`SELECT audio FROM consent_artifacts`.execute(storage.db)
    expect(Buffer.from(rows[0]?.audio as Uint8Array).indexOf(stretch(recording.audio))).toBe(-1)
    const back = await voices.readArtifacts('consents', consent.id)
    expect(back?.audio).toEqual(recording.audio)
    expect(back?.embedding).toEqual(recording.embedding)
    if (storage.dialect === 'sqlite') expect(anywhere(stretch(recording.audio))).toBe(false)
  })

  it('leaves nothing that opens it once revoked: the data keys are gone from every file and table', async () => {
    const voices = await store()
    const recording = artifacts()
    const sample = artifacts()
    const consent = await voices.createConsent(OWNER, { name: 'Ada', language: 'en' }, recording)
    const voice = await voices.createVoice(
      OWNER,
      {
        name: 'Ada narrator',
        consentId: consent.id,
        language: 'en',
        preparedVersion: 'p',
        params: {} as never,
      },
      sample,
    )
    expect(voice).not.toBeNull()
    const keys = await wrappedKeys()
    expect(keys).toHaveLength(2)
    // The search can find what is there: before revocation every key is in the files.
    if (storage.dialect === 'sqlite') for (const key of keys) expect(anywhere(key)).toBe(true)

    expect(await voices.deleteConsent(OWNER, consent.id)).toBe(true)
    expect(await wrappedKeys()).toEqual([])
    expect(await voices.readArtifacts('consents', consent.id)).toBeNull()
    expect(await voices.readArtifacts('voices', voice?.id as string)).toBeNull()
    if (storage.dialect === 'sqlite') {
      for (const key of keys) expect(anywhere(key)).toBe(false)
      expect(anywhere(stretch(recording.audio))).toBe(false)
      expect(anywhere(stretch(sample.audio))).toBe(false)
    }
  })

  it('seals what an older release stored in the clear, and clears the plaintext', async () => {
    await store()
    const old = artifacts()
    await storage.db
      .insertInto('consents')
      .values({ id: 'cons_old', owner_id: OWNER, name: 'Old', language: 'en', created_at: 1 })
      .execute()
    await storage.db
      .insertInto('consent_artifacts')
      .values({
        consent_id: 'cons_old',
        audio: floatBytes(old.audio),
        embedding: floatBytes(old.embedding as Float32Array),
        embedder_version: 'v',
      })
      .execute()
    if (storage.dialect === 'sqlite') expect(anywhere(stretch(old.audio))).toBe(true)

    const reopened = await store()
    expect(await wrappedKeys()).toHaveLength(1)
    expect((await reopened.readArtifacts('consents', 'cons_old'))?.audio).toEqual(old.audio)
    if (storage.dialect === 'sqlite') expect(anywhere(stretch(old.audio))).toBe(false)
  })

  it('is refused to a process holding another master key, and rotates to a new one', async () => {
    const first = await store(sealer(1))
    const recording = artifacts()
    const consent = await first.createConsent(OWNER, { name: 'Ada', language: 'en' }, recording)
    await expect(store(sealer(2))).rejects.toThrow(SealingError)
    await expect(store(sealer(2))).rejects.toThrow(/SPEECH_MASTER_KEY/)

    const rotating = await store(sealer(2, [1]))
    expect(await rotating.rewrapKeys()).toBe(1)
    const rotated = await store(sealer(2))
    expect((await rotated.readArtifacts('consents', consent.id))?.audio).toEqual(recording.audio)
    await expect(store(sealer(1))).rejects.toThrow(SealingError)
  })
})
