import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { ROLES, type Role } from '../../../schema/index.ts'
import { isUniqueViolation } from '../../storage/index.ts'
import type { StudioStorage } from '../database.ts'

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

type UserRow = { id: number; name: string; role: string; created_at: number; password_hash: string }
const toUser = (r: UserRow): User => ({
  id: r.id,
  name: r.name,
  role: r.role as Role,
  createdAt: r.created_at,
})

/**
 * Studio users: names, roles and scrypt password hashes (studio.db or PostgreSQL). Names are unique and found
 * whatever their case on both engines: compared as lower(name), which a unique index holds on PostgreSQL and the
 * column's NOCASE collation on SQLite (names are ASCII, so both fold case alike).
 */
export class UserStore {
  constructor(private readonly storage: StudioStorage) {}

  private get db() {
    return this.storage.db
  }

  private row(name: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql<string>`lower(name)`, '=', name.toLowerCase())
      .executeTakeFirst()
  }

  async add(name: string, role: Role, password: string): Promise<User> {
    if (!/^[\w.@-]{1,64}$/.test(name)) throw new Error('A name is 1–64 letters, digits, or . _ @ -')
    if (!ROLES.includes(role)) throw new Error(`The role must be one of: ${ROLES.join(', ')}`)
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new Error(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`)
    const taken = () => new Error(`A user named "${name}" already exists.`)
    if (await this.row(name)) throw taken()
    const hash = await hashPassword(password)
    const created = Math.floor(Date.now() / 1000)
    try {
      const { id } = await this.db
        .insertInto('users')
        .values({ name, role, password_hash: hash, created_at: created })
        .returning('id')
        .executeTakeFirstOrThrow()
      return { id, name, role, createdAt: created }
    } catch (err) {
      // Another instance (or CLI) added the same name meanwhile.
      if (isUniqueViolation(err)) throw taken()
      throw err
    }
  }

  async list(): Promise<User[]> {
    const rows = await this.db
      .selectFrom('users')
      .selectAll()
      .orderBy(sql`lower(name)`)
      .orderBy('name')
      .execute()
    return rows.map(toUser)
  }

  async count(): Promise<number> {
    const { n } = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(n)
  }

  async find(name: string): Promise<User | undefined> {
    const row = await this.row(name)
    return row && toUser(row)
  }

  async byId(id: number): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
    return row && toUser(row)
  }

  /** Removing a user ends their sessions too (foreign key cascade). */
  async remove(name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('users')
      .where(sql<string>`lower(name)`, '=', name.toLowerCase())
      .executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }

  async setPassword(name: string, password: string): Promise<void> {
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new Error(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`)
    const user = await this.find(name)
    if (!user) throw new Error(`No user named "${name}".`)
    const hash = await hashPassword(password)
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: hash }).where('id', '=', user.id).execute()
      // A new password signs the user out everywhere: every instance reads sessions from here on each request.
      await trx.deleteFrom('sessions').where('user_id', '=', user.id).execute()
    })
  }

  /** The user when the password matches; the same work is done for unknown names. */
  async verify(name: string, password: string): Promise<User | undefined> {
    const row = await this.row(name)
    const ok = await verifyPassword(password, row?.password_hash ?? (await DUMMY_HASH))
    return ok && row ? toUser(row) : undefined
  }
}
