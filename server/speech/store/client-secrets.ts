import type { RealtimeSessionConfig } from '../../../schema/index.ts'
import type { Db } from './db.ts'
import type { KeyStore, Principal } from './keys.ts'

/**
 * Ephemeral client secrets (`ek_…`) minted by `POST /v1/realtime/client_secrets`: an ephemeral key holding only
 * `audio:transcribe`, plus the session configuration sent with it, applied when a socket opens with the secret.
 *
 * An ephemeral key belongs to an organization (the keys table requires one). A registered legacy key has none, so its
 * secrets are filed under an organization row whose id is the legacy key's own id (named `legacy:<key id>`): the
 * secret then resolves to the same owner as the legacy key, and shares its concurrency slots.
 */
export class ClientSecretStore {
  constructor(
    private readonly db: Db,
    private readonly keys: KeyStore,
  ) {}

  mint(
    principal: Principal,
    session: RealtimeSessionConfig,
    ttlSeconds: number,
  ): { value: string; keyId: string; expiresAt: number } {
    // Creating the key also deletes expired ephemeral keys, their session configurations with them (keys.ts).
    return this.db.transaction(() => {
      const org = this.organizationName(principal)
      const { id, key } = this.keys.create({
        kind: 'ephemeral',
        org,
        label: 'client secret',
        permissions: ['audio:transcribe'],
        ttlSeconds,
      })
      this.db
        .prepare('INSERT INTO client_secret_sessions (key_id, session) VALUES (?, ?)')
        .run(id, JSON.stringify(session))
      const row = this.db.prepare('SELECT expires_at FROM api_keys WHERE id = ?').get(id) as {
        expires_at: number
      }
      return { value: key, keyId: id, expiresAt: row.expires_at }
    })()
  }

  /** The configuration minted with an ephemeral key, or null for any other key. */
  sessionFor(keyId: string): RealtimeSessionConfig | null {
    const row = this.db.prepare('SELECT session FROM client_secret_sessions WHERE key_id = ?').get(keyId) as
      | { session: string }
      | undefined
    return row ? (JSON.parse(row.session) as RealtimeSessionConfig) : null
  }

  private organizationName(principal: Principal): string {
    if (principal.kind === 'legacy') {
      const name = `legacy:${principal.ownerId}`
      this.db
        .prepare('INSERT OR IGNORE INTO organizations (id, name, created_at) VALUES (?, ?, ?)')
        .run(principal.ownerId, name, Math.floor(Date.now() / 1000))
      return name
    }
    const row = this.db.prepare('SELECT name FROM organizations WHERE id = ?').get(principal.ownerId) as
      | { name: string }
      | undefined
    if (!row) throw new Error('the key has no organization')
    return row.name
  }
}
