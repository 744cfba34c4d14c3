import { createHash, randomBytes } from 'node:crypto'
import type { ConsentRequest } from '../../../schema/index.ts'
import type { StudioStorage, StudioTables } from '../database.ts'

/**
 * Consent requests and their one-time links (docs/voices-and-consents.md, Remote consent), in the studio's database
 * so that every backend instance behind a round-robin front sees the same state. A link's token is 32 random bytes;
 * only its SHA-256 is kept, so the database (or a backup of it) cannot open a link.
 */

type Row = StudioTables['consent_requests']

/** What the routes need of a request: the answer's fields and who made it. */
export interface StoredRequest extends ConsentRequest {
  createdByRole: string
}

export const newConsentLinkToken = () => randomBytes(32).toString('base64url')
export const hashConsentLinkToken = (token: string) => createHash('sha256').update(token).digest('hex')
const newRequestId = () => `creq_${randomBytes(16).toString('hex')}`

function toRequest(r: Row): StoredRequest {
  return {
    id: r.id,
    object: 'consent_request',
    owner_name: r.owner_name,
    language: r.language,
    created_by: r.created_by,
    created_at: Number(r.created_at),
    expires_at: Number(r.expires_at),
    status: r.status,
    createdByRole: r.created_by_role,
  }
}

export type RevokeOutcome = 'revoked' | 'not_found' | 'used'

export class ConsentRequestStore {
  constructor(private readonly storage: StudioStorage) {}

  private get db() {
    return this.storage.db
  }

  async create(input: {
    ownerName: string
    language: string
    by: string
    role: string
    ttlMs: number
    now?: number
  }): Promise<{ request: StoredRequest; token: string }> {
    const now = input.now ?? Date.now()
    const token = newConsentLinkToken()
    const row: Row = {
      id: newRequestId(),
      token_hash: hashConsentLinkToken(token),
      owner_name: input.ownerName,
      language: input.language,
      created_by: input.by,
      created_by_role: input.role,
      created_at: now,
      expires_at: now + input.ttlMs,
      status: 'open',
      claim: null,
      claimed_until: null,
      used_at: null,
      revoked_at: null,
      consent_id: null,
    }
    await this.db.insertInto('consent_requests').values(row).execute()
    return { request: toRequest(row), token }
  }

  /** Requests still open and not expired, newest first. */
  async listOpen(now = Date.now(), limit = 200): Promise<StoredRequest[]> {
    const rows = await this.db
      .selectFrom('consent_requests')
      .selectAll()
      .where('status', '=', 'open')
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute()
    return rows.map(toRequest)
  }

  /** The request a token opens, if it is open and not expired; anything else (unknown too) is undefined. */
  async usable(token: string, now = Date.now()): Promise<StoredRequest | undefined> {
    const row = await this.db
      .selectFrom('consent_requests')
      .selectAll()
      .where('token_hash', '=', hashConsentLinkToken(token))
      .where('status', '=', 'open')
      .where('expires_at', '>', now)
      .executeTakeFirst()
    return row && toRequest(row)
  }

  /**
   * Takes the link for one sending of a recording, for `holdMs`: one conditional update, so two owners' sends (on any
   * instances) cannot both go ahead. `busy` when another send holds it.
   */
  async claim(
    token: string,
    holdMs: number,
    now = Date.now(),
  ): Promise<{ request: StoredRequest; claim: string } | 'busy' | undefined> {
    const claim = randomBytes(16).toString('hex')
    const hash = hashConsentLinkToken(token)
    const result = await this.db
      .updateTable('consent_requests')
      .set({ claim, claimed_until: now + holdMs })
      .where('token_hash', '=', hash)
      .where('status', '=', 'open')
      .where('expires_at', '>', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 1) {
      const request = await this.usable(token, now)
      return request ? { request, claim } : undefined
    }
    return (await this.usable(token, now)) ? 'busy' : undefined
  }

  /** A send that did not end in a consent (refused, cut short) gives the link back for another try. */
  async release(id: string, claim: string): Promise<void> {
    await this.db
      .updateTable('consent_requests')
      .set({ claim: null, claimed_until: null })
      .where('id', '=', id)
      .where('claim', '=', claim)
      .execute()
  }

  /** The link is used up by the consent it brought; false when it was revoked meanwhile. */
  async complete(id: string, claim: string, consentId: string, now = Date.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('consent_requests')
      .set({ status: 'used', used_at: now, consent_id: consentId, claim: null, claimed_until: null })
      .where('id', '=', id)
      .where('claim', '=', claim)
      .where('status', '=', 'open')
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  /**
   * Withdraws an open link. A link being used right now is revoked all the same: the send in flight finds it gone
   * and deletes the consent it made (routes.ts).
   */
  async revoke(id: string, now = Date.now()): Promise<RevokeOutcome> {
    const result = await this.db
      .updateTable('consent_requests')
      .set({ status: 'revoked', revoked_at: now })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) === 1) return 'revoked'
    const row = await this.db
      .selectFrom('consent_requests')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst()
    return row?.status === 'used' ? 'used' : 'not_found'
  }
}
