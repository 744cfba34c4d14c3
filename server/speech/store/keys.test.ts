import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Db, openSpeechDb } from './db.ts'
import { KeyStore } from './keys.ts'

let dir: string
let db: Db
let keys: KeyStore

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'keys-'))
  db = openSpeechDb(dir)
  keys = new KeyStore(db)
})
afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('KeyStore', () => {
  it('stores only a hash: the secret is not in the database file', () => {
    const { key } = keys.create({ kind: 'organization', org: 'acme' })
    const rows = JSON.stringify(db.prepare('SELECT * FROM api_keys').all())
    expect(rows).not.toContain(key)
    expect(rows).not.toContain(key.slice(8))
  })

  it('resolves organization keys to their organization, shared by all its keys', () => {
    const a = keys.authenticate(keys.create({ kind: 'organization', org: 'acme' }).key)
    const b = keys.authenticate(keys.create({ kind: 'organization', org: 'acme' }).key)
    const other = keys.authenticate(keys.create({ kind: 'organization', org: 'globex' }).key)
    expect(a?.ownerId).toBe(b?.ownerId)
    expect(a?.ownerId).not.toBe(other?.ownerId)
    expect(a?.kind).toBe('organization')
  })

  it('makes a legacy key its own owner', () => {
    const created = keys.create({ kind: 'legacy', label: 'migrated' })
    const p = keys.authenticate(created.key)
    expect(p?.ownerId).toBe(created.id)
  })

  it('issues ephemeral keys with an ek_ prefix that expire', () => {
    const created = keys.create({ kind: 'ephemeral', org: 'acme', ttlSeconds: 60 })
    expect(created.key.startsWith('ek_')).toBe(true)
    expect(keys.authenticate(created.key)?.kind).toBe('ephemeral')
    const expired = keys.create({ kind: 'ephemeral', org: 'acme', ttlSeconds: 0 })
    expect(keys.authenticate(expired.key)).toBeNull()
  })

  it('refuses revoked and unknown keys, and keeps permissions', () => {
    const created = keys.create({ kind: 'organization', org: 'acme', permissions: ['audio:transcribe'] })
    expect([...(keys.authenticate(created.key)?.permissions ?? [])]).toEqual(['audio:transcribe'])
    expect(keys.revoke(created.id)).toBe(true)
    expect(keys.authenticate(created.key)).toBeNull()
    expect(keys.authenticate('sk_nope')).toBeNull()
    expect(keys.revoke(created.id)).toBe(false)
  })

  it('needs an organization for organization and ephemeral keys', () => {
    expect(() => keys.create({ kind: 'organization' })).toThrow(/organization/)
  })
})
