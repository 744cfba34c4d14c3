import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * A new organization key made by the service's own CLI (`server/speech/access/keys-cli.ts`) on the database of `dataDir`
 * (or, with `DATABASE_URL` in `env`, on PostgreSQL), as an operator would; its last line of output is the key.
 */
export async function keyFromCli(
  org: string,
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'server/speech/access/keys-cli.ts', 'create', '--org', org, '--data', dataDir],
    { env },
  )
  const key = stdout.trim().split('\n').at(-1) ?? ''
  if (!key.startsWith('sk_')) throw new Error(`the keys CLI printed no key: ${stdout}`)
  return key
}
