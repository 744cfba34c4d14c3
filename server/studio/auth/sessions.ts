import { createHash, randomBytes } from 'node:crypto'
import type { Role } from '../../../schema/index.ts'
import type { StudioStorage } from '../database.ts'

export const SESSION_TTL_SECONDS = 12 * 60 * 60

export interface Session {
  /** null for the automatic local admin session (no user exists). */
  userId: number | null
  csrfToken: string
  expiresAt: number
}

/** A session with the user it belongs to (null for the automatic local admin's). */
export interface SessionWithUser {
  session: Session
  user: { id: number; name: string; role: Role } | null
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex')
const now = () => Math.floor(Date.now() / 1000)

/**
 * Sign-in sessions. Only a hash of the cookie's token is stored, so the database cannot be replayed as cookies.
 * Nothing is cached: every request reads its session (with its user, in one query) from the database, so a sign-out,
 * a password change or a user's removal through any instance or the users CLI takes effect everywhere at once.
 */
export class SessionStore {
  constructor(private readonly storage: StudioStorage) {}

  async create(userId: number | null): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url')
    const session = {
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: now() + SESSION_TTL_SECONDS,
    }
    const { db } = this.storage
    await db.deleteFrom('sessions').where('expires_at', '<=', now()).execute()
    await db
      .insertInto('sessions')
      .values({
        token_hash: hash(token),
        user_id: userId,
        csrf_token: session.csrfToken,
        created_at: now(),
        expires_at: session.expiresAt,
      })
      .execute()
    return { token, session }
  }

  /** The unexpired session of `token` and its user; undefined when there is none. */
  async get(token: string): Promise<SessionWithUser | undefined> {
    const row = await this.storage.db
      .selectFrom('sessions as s')
      .leftJoin('users as u', 'u.id', 's.user_id')
      .select(['s.user_id', 's.csrf_token', 's.expires_at', 'u.id', 'u.name', 'u.role'])
      .where('s.token_hash', '=', hash(token))
      .where('s.expires_at', '>', now())
      .executeTakeFirst()
    if (!row) return undefined
    const session = { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at }
    if (row.user_id === null) return { session, user: null }
    // A user removed between the two (the cascade makes this rare) has no session.
    if (row.id === null || row.name === null || row.role === null) return undefined
    return { session, user: { id: row.id, name: row.name, role: row.role as Role } }
  }

  async delete(token: string): Promise<void> {
    await this.storage.db.deleteFrom('sessions').where('token_hash', '=', hash(token)).execute()
  }
}
