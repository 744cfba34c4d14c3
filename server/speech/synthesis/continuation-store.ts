import { createHash, randomBytes } from 'node:crypto'
import type { SpeechDb, SpeechStorage } from '../database.ts'

/**
 * Continuations of `POST /v1/audio/speech` answered 303 at capacity (docs/api.md): the request, kept under a random
 * token for a minute, for the client to fetch when a slot frees. Kept in the database, so the follow-up may reach any
 * instance; only the token's hash is stored (a database reader cannot redeem one). Redeeming is one `DELETE …
 * RETURNING`, so a token serves exactly once even when two instances are asked at the same moment.
 */
export class ContinuationStore {
  private readonly db: SpeechDb

  constructor(storage: SpeechStorage) {
    this.db = storage.db
  }

  /** Keeps `request` (its JSON body) for `ownerId` and returns the token; expired continuations are removed first. */
  async issue(ownerId: string, request: unknown, ttlMs: number, now = Date.now()): Promise<string> {
    const token = randomBytes(16).toString('hex')
    await this.db.deleteFrom('continuations').where('expires_at', '<=', now).execute()
    await this.db
      .insertInto('continuations')
      .values({
        token_hash: hash(token),
        owner_id: ownerId,
        request: JSON.stringify(request),
        expires_at: now + ttlMs,
      })
      .execute()
    return token
  }

  /** The request kept under `token` for `ownerId`, removed as it is read; undefined when unknown, used or expired. */
  async redeem(token: string, ownerId: string, now = Date.now()): Promise<unknown> {
    const row = await this.db
      .deleteFrom('continuations')
      .where('token_hash', '=', hash(token))
      .where('owner_id', '=', ownerId)
      .where('expires_at', '>', now)
      .returning('request')
      .executeTakeFirst()
    return row ? (JSON.parse(row.request) as unknown) : undefined
  }
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex')
