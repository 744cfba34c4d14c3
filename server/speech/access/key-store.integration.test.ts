import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SpeechTestDatabase, speechTestDatabase } from '../../testing/speech-database.ts'
import type { SpeechStorage } from '../database.ts'
import { KeyStore } from './key-store.ts'

/** On the tests' backend: SQLite by default, PostgreSQL in the `postgres` project (server/testing/speech-database.ts). */
let dir: string
let database: SpeechTestDatabase
let storage: SpeechStorage
let keys: KeyStore

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keys-'))
  database = speechTestDatabase(dir)
  storage = await database.open()
  keys = new KeyStore(storage)
})
afterEach(async () => {
  await storage.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('KeyStore', () => {
  it('stores only a hash: the secret is not in the database', async () => {
    const { key } = await keys.create({ kind: 'organization', org: 'acme' })
    const rows = JSON.stringify(await storage.db.selectFrom('api_keys').selectAll().execute())
    expect(rows).toContain('acme')
    expect(rows).not.toContain(key)
    expect(rows).not.toContain(key.slice(8))
  })

  it('resolves organization keys to their organization, shared by all its keys', async () => {
    const a = await keys.authenticate((await keys.create({ kind: 'organization', org: 'acme' })).key)
    const b = await keys.authenticate((await keys.create({ kind: 'organization', org: 'acme' })).key)
    const other = await keys.authenticate((await keys.create({ kind: 'organization', org: 'globex' })).key)
    expect(a?.ownerId).toBe(b?.ownerId)
    expect(a?.ownerId).not.toBe(other?.ownerId)
    expect(a?.kind).toBe('organization')
  })

  it('creates one organization when many keys of a new one are created at once', async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, () => keys.create({ kind: 'organization', org: 'initech' })),
    )
    const owners = await Promise.all(created.map(async (c) => (await keys.authenticate(c.key))?.ownerId))
    expect(new Set(owners).size).toBe(1)
    expect(await storage.db.selectFrom('organizations').select('id').execute()).toHaveLength(1)
  })

  it('makes a legacy key its own owner', async () => {
    const created = await keys.create({ kind: 'legacy', label: 'migrated' })
    const p = await keys.authenticate(created.key)
    expect(p?.ownerId).toBe(created.id)
  })

  it('issues ephemeral keys with an ek_ prefix that expire', async () => {
    const created = await keys.create({ kind: 'ephemeral', org: 'acme', ttlSeconds: 60 })
    expect(created.key.startsWith('ek_')).toBe(true)
    expect((await keys.authenticate(created.key))?.kind).toBe('ephemeral')
    const expired = await keys.create({ kind: 'ephemeral', org: 'acme', ttlSeconds: 0 })
    expect(await keys.authenticate(expired.key)).toBeNull()
    expect(await keys.deleteExpiredEphemeral()).toBe(1)
    expect((await keys.list()).map((k) => k.id)).toEqual([created.id])
  })

  it('refuses revoked and unknown keys, and keeps permissions', async () => {
    const created = await keys.create({
      kind: 'organization',
      org: 'acme',
      permissions: ['audio:transcribe'],
    })
    expect([...((await keys.authenticate(created.key))?.permissions ?? [])]).toEqual(['audio:transcribe'])
    expect(await keys.revoke(created.id)).toBe(true)
    expect(await keys.authenticate(created.key)).toBeNull()
    expect(await keys.authenticate('sk_nope')).toBeNull()
    expect(await keys.revoke(created.id)).toBe(false)
    const [listed] = await keys.list()
    expect(listed).toMatchObject({ id: created.id, orgName: 'acme', revokedAt: expect.any(Number) })
  })

  it('needs an organization for organization and ephemeral keys', async () => {
    await expect(keys.create({ kind: 'organization' })).rejects.toThrow(/organization/)
  })
})
