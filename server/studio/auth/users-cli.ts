import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { ROLES, type Role } from '../../../schema/index.ts'
import { loadConfig, parseFlags } from '../../config.ts'
import { openStudioStorage } from '../database.ts'
import { UserStore } from './users.ts'

/**
 * `npm run users -- add NAME --role ROLE | list | remove NAME | passwd NAME [--data DIR]`. Passwords are read from
 * standard input — typed without echo at a terminal, or piped — never from the command line, where they would end
 * up in shell history and the process list. With `DATABASE_URL` (and `STUDIO_DATABASE_SCHEMA`) set as for the
 * backend, it works on the shared PostgreSQL: a `passwd` or `remove` ends the user's sessions on every instance.
 */
const USAGE = `usage: npm run users -- add NAME --role ${ROLES.join('|')} [--data DIR]
       npm run users -- list [--data DIR]
       npm run users -- remove NAME [--data DIR]
       npm run users -- passwd NAME [--data DIR]`

async function readPassword(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY })
  if (process.stdin.isTTY) {
    process.stdout.write(prompt)
    // Typed characters are not echoed.
    ;(rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {}
  }
  const line = await new Promise<string>((resolve) =>
    rl.once('line', resolve).once('close', () => resolve('')),
  )
  rl.close()
  if (process.stdin.isTTY) process.stdout.write('\n')
  return line
}

async function main(argv: string[]): Promise<number> {
  const { flags, positional } = parseFlags(argv, { role: 'string', data: 'string' })
  const [command, name] = positional
  const config = loadConfig()
  const db = await openStudioStorage({
    dataDir: flags.data ? resolve(flags.data as string) : config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.studio.databaseSchema,
  })
  const users = new UserStore(db)
  try {
    switch (command) {
      case 'add': {
        if (!name) throw new Error('a NAME is required')
        const role = flags.role as Role | undefined
        if (!role || !ROLES.includes(role)) throw new Error(`--role must be one of: ${ROLES.join(', ')}`)
        const user = await users.add(name, role, await readPassword(`Password for ${name}: `))
        console.log(`added ${user.name} (${user.role})`)
        return 0
      }
      case 'list':
        for (const u of await users.list())
          console.log([u.name, u.role, new Date(u.createdAt * 1000).toISOString()].join('\t'))
        return 0
      case 'remove':
        if (!name) throw new Error('a NAME is required')
        if (!(await users.remove(name))) throw new Error(`no user named "${name}"`)
        console.log(`removed ${name}; their sessions are ended`)
        return 0
      case 'passwd':
        if (!name) throw new Error('a NAME is required')
        await users.setPassword(name, await readPassword(`New password for ${name}: `))
        console.log(`password changed for ${name}; their sessions are ended`)
        return 0
      default:
        console.error(USAGE)
        return 2
    }
  } catch (err) {
    console.error(`users: ${(err as Error).message}`)
    return 1
  } finally {
    await db.close()
  }
}

process.exitCode = await main(process.argv.slice(2))
