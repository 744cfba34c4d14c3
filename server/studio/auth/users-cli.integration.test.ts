import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { testDatabase } from '../../testing/studio.ts'
import { UserStore } from './users.ts'

const dir = mkdtempSync(join(tmpdir(), 'users-cli-'))
// SQLite in `dir`, or a schema of its own on PostgreSQL, which the CLI reaches through the same settings.
const database = testDatabase()
afterAll(async () => {
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs the real CLI with the password piped on standard input, as a script would. */
function users(args: string[], input = ''): { status: number; out: string } {
  try {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'server/studio/auth/users-cli.ts', ...args, '--data', dir],
      {
        input,
        encoding: 'utf8',
        env: { ...process.env, ...database.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    )
    return { status: 0, out }
  } catch (err) {
    const e = err as { status: number; stderr: string }
    return { status: e.status, out: e.stderr }
  }
}

// Each call starts a Node process and hashes with scrypt; on a loaded machine that takes seconds.
describe('npm run users', { timeout: 180_000 }, () => {
  it('adds, lists, changes the password of and removes a user', async () => {
    expect(users(['add', 'ria', '--role', 'reviewer'], 'a fine long password\n')).toMatchObject({ status: 0 })
    expect(users(['list']).out).toMatch(/^ria\treviewer\t/m)
    expect(users(['passwd', 'ria'], 'the next long password\n').status).toBe(0)
    const db = await database.open(dir)
    const store = new UserStore(db)
    expect(await store.verify('ria', 'the next long password')).toMatchObject({ role: 'reviewer' })
    expect(await store.verify('RIA', 'the next long password')).toMatchObject({ name: 'ria' })
    expect(await store.verify('ria', 'a fine long password')).toBeUndefined()
    await db.close()
    expect(users(['remove', 'ria']).status).toBe(0)
    expect(users(['list']).out).not.toMatch(/ria/)
  })

  it('refuses bad input with a message and a non-zero status, changing nothing', () => {
    expect(users(['add', 'x', '--role', 'boss'], 'a fine long password\n')).toMatchObject({
      status: 1,
      out: expect.stringMatching(/role/),
    })
    expect(users(['add', 'x', '--role', 'designer'], 'short\n')).toMatchObject({
      status: 1,
      out: expect.stringMatching(/10 characters/),
    })
    expect(users(['remove', 'nobody']).status).toBe(1)
    expect(users(['frobnicate']).status).toBe(2)
    expect(users(['list']).out).toBe('')
  })
})
