import type { Kysely } from 'kysely'
import type { RealtimeSessionConfig } from '../../../schema/index.ts'
import type { SpeechDb, SpeechStorage, SpeechTables } from '../database.ts'
import type { KeyStore, Principal } from './key-store.ts'

/**
 * Ephemeral client secrets (`ek_…`) minted by `POST /v1/realtime/client_secrets`: an ephemeral key holding only
 * `audio:transcribe`, plus the session configuration sent with it, applied when a socket opens with the secret.
 *
 * An ephemeral key belongs to an organization (the keys table requires one). A registered legacy key has none, so its
 * secrets are filed under an organization row whose id is the legacy key's own id (named `legacy:<key id>`): the
 * secret then resolves to the same owner as the legacy key, and shares its concurrency slots.
 */
export class ClientSecretStore {
  private readonly db: SpeechDb

  constructor(
    storage: SpeechStorage,
    private readonly keys: KeyStore,
  ) {
    this.db = storage.db
  }

  /** The key and its session configuration are written together: a socket never finds the one without the other. */
  mint(
    principal: Principal,
    session: RealtimeSessionConfig,
    ttlSeconds: number,
  ): Promise<{ value: string; keyId: string; expiresAt: number }> {
    // Creating the key also deletes expired ephemeral keys, their session configurations with them (key-store.ts).
    return this.db.transaction().execute(async (trx) => {
      const org = await this.organizationName(principal, trx)
      const { id, key, expiresAt } = await this.keys.create(
        { kind: 'ephemeral', org, label: 'client secret', permissions: ['audio:transcribe'], ttlSeconds },
        trx,
      )
      await trx
        .insertInto('client_secret_sessions')
        .values({ key_id: id, session: JSON.stringify(session) })
        .execute()
      return { value: key, keyId: id, expiresAt: expiresAt as number }
    })
  }

  /** The configuration minted with an ephemeral key, or null for any other key. */
  async sessionFor(keyId: string): Promise<RealtimeSessionConfig | null> {
    const row = await this.db
      .selectFrom('client_secret_sessions')
      .select('session')
      .where('key_id', '=', keyId)
      .executeTakeFirst()
    return row ? (JSON.parse(row.session) as RealtimeSessionConfig) : null
  }

  private async organizationName(principal: Principal, db: Kysely<SpeechTables>): Promise<string> {
    if (principal.kind === 'legacy') {
      const name = `legacy:${principal.ownerId}`
      await db
        .insertInto('organizations')
        .values({ id: principal.ownerId, name, created_at: Math.floor(Date.now() / 1000) })
        .onConflict((oc) => oc.doNothing())
        .execute()
      return name
    }
    const row = await db
      .selectFrom('organizations')
      .select('name')
      .where('id', '=', principal.ownerId)
      .executeTakeFirst()
    if (!row) throw new Error('the key has no organization')
    return row.name
  }
}
