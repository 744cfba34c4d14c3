import { resolve } from 'node:path'
import { loadConfig, parseFlags } from '../../config.ts'
import { openSpeechStorage } from '../database.ts'
import { sealerOf, VoiceStore } from '../voices/voice-store.ts'
import { type KeyKind, KeyStore, parsePermissions } from './key-store.ts'

/**
 * `npm run keys -- create --org NAME [--legacy] [--ephemeral] [--permissions a,b] [--data DIR]` prints the new
 * key as its last line; `list` and `revoke KEY_ID` manage existing keys. With `DATABASE_URL` (and
 * `SPEECH_DATABASE_SCHEMA`) set as for the service, it works on that PostgreSQL database instead of DIR/speech.db.
 * `rewrap` ends a master key rotation: every data key of consents and voices wrapped again by `SPEECH_MASTER_KEY`,
 * the replaced key given in `SPEECH_MASTER_KEY_PREVIOUS` (docs/security.md, Erasure).
 */
const USAGE = `usage: npm run keys -- create --org NAME [--legacy] [--ephemeral] [--permissions tts:generate,...] [--data DIR]
       npm run keys -- list [--data DIR]
       npm run keys -- revoke KEY_ID [--data DIR]
       npm run keys -- rewrap [--data DIR]`

async function main(argv: string[]): Promise<number> {
  const { flags, positional } = parseFlags(argv, {
    org: 'string',
    legacy: 'boolean',
    ephemeral: 'boolean',
    permissions: 'string',
    data: 'string',
    label: 'string',
  })
  const [command, ...rest] = positional
  const config = loadConfig()
  const dataDir = flags.data ? resolve(flags.data as string) : config.dataDir
  const storage = await openSpeechStorage({
    dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.speech.databaseSchema,
  })
  const keys = new KeyStore(storage)
  try {
    switch (command) {
      case 'create': {
        if (flags.legacy && flags.ephemeral) throw new Error('a key is either --legacy or --ephemeral')
        const kind: KeyKind = flags.legacy ? 'legacy' : flags.ephemeral ? 'ephemeral' : 'organization'
        const org = flags.org as string | undefined
        if (!org && kind !== 'legacy') throw new Error('--org NAME is required')
        const { id, key } = await keys.create({
          kind,
          org,
          label: (flags.label as string | undefined) ?? org,
          // Only an absent flag means every permission; `--permissions ""` is an error (parsePermissions).
          permissions:
            flags.permissions === undefined ? undefined : parsePermissions(flags.permissions as string),
        })
        console.log(`created ${kind} key ${id}${org && kind !== 'legacy' ? ` for ${org}` : ''}`)
        console.log(key)
        return 0
      }
      case 'list':
        for (const k of await keys.list()) {
          const state = k.revokedAt
            ? 'revoked'
            : k.expiresAt && k.expiresAt * 1000 < Date.now()
              ? 'expired'
              : 'active'
          console.log(
            [k.id, k.kind, k.orgName ?? '-', `${k.prefix}…`, k.permissions.join(','), state].join('\t'),
          )
        }
        return 0
      case 'revoke': {
        const id = rest[0]
        if (!id) throw new Error('revoke needs a KEY_ID (see list)')
        if (!(await keys.revoke(id))) throw new Error(`no active key ${id}`)
        console.log(`revoked ${id}`)
        return 0
      }
      case 'rewrap': {
        const sealer = sealerOf({ ...config.speech, dataDir })
        const count = await (await VoiceStore.open(storage, dataDir, sealer)).rewrapKeys()
        console.log(`rewrapped ${count} data keys with master key ${sealer.current.id}`)
        return 0
      }
      default:
        console.error(USAGE)
        return 2
    }
  } finally {
    await storage.close()
  }
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (err) {
  console.error(`keys: ${(err as Error).message}`)
  process.exitCode = 2
}
