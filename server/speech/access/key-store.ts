import { createHash, randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { SpeechDb, SpeechStorage, SpeechTables } from '../database.ts'

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

/** The database or a transaction on it: key operations that run inside another store's transaction take one. */
type Executor = Kysely<SpeechTables>

export class KeyStore {
  private readonly db: SpeechDb

  constructor(storage: SpeechStorage) {
    this.db = storage.db
  }

  /** The organization's id, created when the name is new; two instances creating it at once get the same row. */
  async ensureOrganization(name: string, db: Executor = this.db): Promise<string> {
    await db
      .insertInto('organizations')
      .values({ id: newId('org'), name, created_at: now() })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute()
    const row = await db
      .selectFrom('organizations')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow()
    return row.id
  }

  /** Creates a key and returns its secret, which is never stored and cannot be recovered. */
  async create(
    opts: {
      kind: KeyKind
      org?: string
      label?: string
      permissions?: Permission[]
      ttlSeconds?: number
    },
    db?: Executor,
  ): Promise<{ id: string; key: string; expiresAt: number | null }> {
    const { kind } = opts
    if (kind !== 'legacy' && !opts.org) throw new Error(`a ${kind} key needs an organization`)
    // Omitted permissions mean all of them; an empty list would be a key that can do nothing — surely a mistake.
    if (opts.permissions?.length === 0) throw new Error('a key needs at least one permission')
    const key = `${kind === 'ephemeral' ? 'ek' : 'sk'}_${randomBytes(32).toString('base64url')}`
    const id = newId('key')
    const created = now()
    const expiresAt = kind === 'ephemeral' ? created + (opts.ttlSeconds ?? EPHEMERAL_TTL_SECONDS) : null
    const insert = async (trx: Executor) => {
      if (kind === 'ephemeral') await this.deleteExpiredEphemeral(trx)
      const orgId = kind === 'legacy' ? null : await this.ensureOrganization(opts.org as string, trx)
      await trx
        .insertInto('api_keys')
        .values({
          id,
          kind,
          org_id: orgId,
          label: opts.label ?? opts.org ?? 'legacy',
          hash: hashKey(key),
          prefix: key.slice(0, 7),
          permissions: JSON.stringify(opts.permissions ?? [...PERMISSIONS]),
          created_at: created,
          expires_at: expiresAt,
        })
        .execute()
    }
    if (db) await insert(db)
    else await this.db.transaction().execute(insert)
    return { id, key, expiresAt }
  }

  /**
   * Deletes expired ephemeral keys (and, by cascade, the session configurations minted with them). Run at start-up
   * and whenever an ephemeral key is created, so expired rows never pile up beyond one creation's worth; an expired
   * key that is still there is refused anyway (authenticate).
   */
  async deleteExpiredEphemeral(db: Executor = this.db): Promise<number> {
    const result = await db
      .deleteFrom('api_keys')
      .where('kind', '=', 'ephemeral')
      .where('expires_at', '<=', now())
      .executeTakeFirst()
    return Number(result.numDeletedRows)
  }

  /** The principal a presented key resolves to, or null when the key is unknown, revoked or expired. */
  async authenticate(key: string): Promise<Principal | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'kind', 'org_id', 'permissions', 'expires_at'])
      .where('hash', '=', hashKey(key))
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    if (!row || (row.expires_at !== null && row.expires_at <= now())) return null
    return {
      keyId: row.id,
      kind: row.kind,
      ownerId: row.org_id ?? row.id,
      permissions: new Set(JSON.parse(row.permissions) as Permission[]),
    }
  }

  async list(): Promise<KeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys as k')
      .leftJoin('organizations as o', 'o.id', 'k.org_id')
      .select([
        'k.id',
        'k.kind',
        'o.name as org_name',
        'k.label',
        'k.prefix',
        'k.permissions',
        'k.created_at',
        'k.expires_at',
        'k.revoked_at',
      ])
      .orderBy('k.created_at')
      .orderBy('k.id')
      .execute()
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

  async revoke(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }
}
