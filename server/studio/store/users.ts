import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import type { StudioDb } from './db.ts'

export const ROLES = ['designer', 'consent_admin', 'reviewer', 'admin'] as const
export type Role = (typeof ROLES)[number]

export interface User {
  id: number
  name: string
  role: Role
  createdAt: number
}

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
) => Promise<Buffer>
/** OWASP's scrypt minimum (N=2^17, r=8, p=1): 128 MiB of memory per guess makes offline cracking expensive. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 }
const KEY_LENGTH = 32
export const MIN_PASSWORD_LENGTH = 10

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, KEY_LENGTH, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`
}

async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  })
  return timingSafeEqual(actual, expected)
}

/** A password hash to compare against when the name is unknown, so timing does not reveal which names exist. */
const DUMMY_HASH = hashPassword(randomBytes(16).toString('hex'))

type UserRow = { id: number; name: string; role: Role; created_at: number; password_hash: string }
const toUser = (r: UserRow): User => ({ id: r.id, name: r.name, role: r.role, createdAt: r.created_at })

/** Studio users: names (case-insensitive), roles and scrypt password hashes in studio.db. */
export class UserStore {
  constructor(private readonly db: StudioDb) {}

  async add(name: string, role: Role, password: string): Promise<User> {
    if (!/^[\w.@-]{1,64}$/.test(name)) throw new Error('A name is 1–64 letters, digits, or . _ @ -')
    if (!ROLES.includes(role)) throw new Error(`The role must be one of: ${ROLES.join(', ')}`)
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new Error(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`)
    if (this.find(name)) throw new Error(`A user named "${name}" already exists.`)
    const hash = await hashPassword(password)
    const created = Math.floor(Date.now() / 1000)
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO users (name, role, password_hash, created_at) VALUES (?, ?, ?, ?)')
      .run(name, role, hash, created)
    return { id: Number(lastInsertRowid), name, role, createdAt: created }
  }

  list(): User[] {
    return (this.db.prepare('SELECT * FROM users ORDER BY name').all() as UserRow[]).map(toUser)
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n
  }

  find(name: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE name = ?').get(name) as UserRow | undefined
    return row && toUser(row)
  }

  byId(id: number): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined
    return row && toUser(row)
  }

  /** Removing a user ends their sessions too (foreign key cascade). */
  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM users WHERE name = ?').run(name).changes > 0
  }

  async setPassword(name: string, password: string): Promise<void> {
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new Error(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`)
    const user = this.find(name)
    if (!user) throw new Error(`No user named "${name}".`)
    const hash = await hashPassword(password)
    this.db.transaction(() => {
      this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, user.id)
      // A new password signs the user out everywhere.
      this.db.prepare('DELETE FROM sessions WHERE user_id = ?').run(user.id)
    })()
  }

  /** The user when the password matches; the same work is done for unknown names. */
  async verify(name: string, password: string): Promise<User | undefined> {
    const row = this.db.prepare('SELECT * FROM users WHERE name = ?').get(name) as UserRow | undefined
    const ok = await verifyPassword(password, row?.password_hash ?? (await DUMMY_HASH))
    return ok && row ? toUser(row) : undefined
  }
}
