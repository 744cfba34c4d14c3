import { createHash, randomBytes } from 'node:crypto'
import type { StudioDb } from './db.ts'

export const SESSION_TTL_SECONDS = 12 * 60 * 60

export interface Session {
  /** null for the automatic local admin session (no user exists). */
  userId: number | null
  csrfToken: string
  expiresAt: number
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex')
const now = () => Math.floor(Date.now() / 1000)

/** Sign-in sessions. Only a hash of the cookie's token is stored, so the database cannot be replayed as cookies. */
export class SessionStore {
  constructor(private readonly db: StudioDb) {}

  create(userId: number | null): { token: string; session: Session } {
    const token = randomBytes(32).toString('base64url')
    const session = {
      userId,
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: now() + SESSION_TTL_SECONDS,
    }
    this.db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(now())
    this.db
      .prepare(
        'INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(hash(token), userId, session.csrfToken, now(), session.expiresAt)
    return { token, session }
  }

  get(token: string): Session | undefined {
    const row = this.db
      .prepare('SELECT user_id, csrf_token, expires_at FROM sessions WHERE token_hash = ? AND expires_at > ?')
      .get(hash(token), now()) as
      | { user_id: number | null; csrf_token: string; expires_at: number }
      | undefined
    return row && { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at }
  }

  delete(token: string) {
    this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(hash(token))
  }
}
