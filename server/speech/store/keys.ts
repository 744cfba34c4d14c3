import { createHash, randomBytes } from 'node:crypto'
import type { Db } from './db.ts'

/**
 * Organizations and API keys. Keys are 32 random bytes, so a plain SHA-256 is enough to store them safely (no
 * KDF needed: nothing to brute-force); only the hash and a short display prefix are kept.
 */

export const PERMISSIONS = ['tts:generate', 'voices:manage', 'audio:transcribe'] as const
export type Permission = (typeof PERMISSIONS)[number]
export type KeyKind = 'organization' | 'legacy' | 'ephemeral'

export const EPHEMERAL_TTL_SECONDS = 600

/** Who owns saved voices, consents and concurrency slots: an organization, or a legacy key on its own. */
export interface Principal {
  keyId: string
  kind: KeyKind
  ownerId: string
  permissions: ReadonlySet<Permission>
}

export interface KeyRecord {
  id: string
  kind: KeyKind
  orgName: string | null
  label: string
  prefix: string
  permissions: Permission[]
  createdAt: number
  expiresAt: number | null
  revokedAt: number | null
}

const now = () => Math.floor(Date.now() / 1000)
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')
const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`

/** A comma-separated list of at least one known permission; an empty list is an error, never "everything". */
export function parsePermissions(list: string): Permission[] {
  const perms = list
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  if (perms.length === 0) {
    throw new Error(`no permission given; name at least one of ${PERMISSIONS.join(', ')}`)
  }
  for (const p of perms) {
    if (!(PERMISSIONS as readonly string[]).includes(p)) {
      throw new Error(`unknown permission ${p}; known: ${PERMISSIONS.join(', ')}`)
    }
  }
  return perms as Permission[]
}

export class KeyStore {
  constructor(private readonly db: Db) {}

  ensureOrganization(name: string): string {
    const existing = this.db.prepare('SELECT id FROM organizations WHERE name = ?').get(name) as
      | { id: string }
      | undefined
    if (existing) return existing.id
    const id = newId('org')
    this.db.prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)').run(id, name, now())
    return id
  }

  /** Creates a key and returns its secret, which is never stored and cannot be recovered. */
  create(opts: {
    kind: KeyKind
    org?: string
    label?: string
    permissions?: Permission[]
    ttlSeconds?: number
  }): { id: string; key: string } {
    const { kind } = opts
    if (kind !== 'legacy' && !opts.org) throw new Error(`a ${kind} key needs an organization`)
    // Omitted permissions mean all of them; an empty list would be a key that can do nothing — surely a mistake.
    if (opts.permissions?.length === 0) throw new Error('a key needs at least one permission')
    const key = `${kind === 'ephemeral' ? 'ek' : 'sk'}_${randomBytes(32).toString('base64url')}`
    const id = newId('key')
    const created = now()
    return this.db.transaction(() => {
      if (kind === 'ephemeral') this.deleteExpiredEphemeral()
      const orgId = kind === 'legacy' ? null : this.ensureOrganization(opts.org as string)
      this.db
        .prepare(
          `INSERT INTO api_keys (id, kind, org_id, label, hash, prefix, permissions, created_at, expires_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          kind,
          orgId,
          opts.label ?? opts.org ?? 'legacy',
          hashKey(key),
          key.slice(0, 7),
          JSON.stringify(opts.permissions ?? [...PERMISSIONS]),
          created,
          kind === 'ephemeral' ? created + (opts.ttlSeconds ?? EPHEMERAL_TTL_SECONDS) : null,
        )
      return { id, key }
    })()
  }

  /**
   * Deletes expired ephemeral keys (and, by cascade, the session configurations minted with them). Run at start-up
   * and whenever an ephemeral key is created, so expired rows never pile up beyond one creation's worth; an expired
   * key that is still there is refused anyway (authenticate).
   */
  deleteExpiredEphemeral(): number {
    return this.db.prepare(`DELETE FROM api_keys WHERE kind = 'ephemeral' AND expires_at <= ?`).run(now())
      .changes
  }

  /** The principal a presented key resolves to, or null when the key is unknown, revoked or expired. */
  authenticate(key: string): Principal | null {
    const row = this.db
      .prepare(
        `SELECT id, kind, org_id, permissions, expires_at FROM api_keys
         WHERE hash = ? AND revoked_at IS NULL`,
      )
      .get(hashKey(key)) as
      | { id: string; kind: KeyKind; org_id: string | null; permissions: string; expires_at: number | null }
      | undefined
    if (!row || (row.expires_at !== null && row.expires_at <= now())) return null
    return {
      keyId: row.id,
      kind: row.kind,
      ownerId: row.org_id ?? row.id,
      permissions: new Set(JSON.parse(row.permissions) as Permission[]),
    }
  }

  list(): KeyRecord[] {
    const rows = this.db
      .prepare(
        `SELECT k.id, k.kind, o.name AS org_name, k.label, k.prefix, k.permissions, k.created_at,
                k.expires_at, k.revoked_at
         FROM api_keys k LEFT JOIN organizations o ON o.id = k.org_id ORDER BY k.created_at, k.id`,
      )
      .all() as Array<{
      id: string
      kind: KeyKind
      org_name: string | null
      label: string
      prefix: string
      permissions: string
      created_at: number
      expires_at: number | null
      revoked_at: number | null
    }>
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      orgName: r.org_name,
      label: r.label,
      prefix: r.prefix,
      permissions: JSON.parse(r.permissions) as Permission[],
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      revokedAt: r.revoked_at,
    }))
  }

  revoke(id: string): boolean {
    return (
      this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now(), id)
        .changes === 1
    )
  }
}
