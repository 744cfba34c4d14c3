/**
 * The streaming decoder's executable (native/ps-stream.c), compiled on first use against the installed PocketSphinx
 * library: Debian ships no streaming front end, only `pocketsphinx_batch`. It needs a C compiler, `pkg-config` and the
 * Debian package libpocketsphinx-dev; where any is missing, callers go without streaming (docs/recognition.md).
 * The build is cached under the system's temporary directory by a hash of the source and the compiler flags, so a
 * machine compiles each version once; concurrent builds each write their own file and rename it into place.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { access, mkdir, readFile, rename, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const SOURCE = fileURLToPath(new URL('./native/ps-stream.c', import.meta.url))
const run = promisify(execFile)

let built: Promise<string | null> | null = null
/** Set once the build has settled. */
let result: string | null | undefined

/** The path of the built executable, or null (once, then remembered) when it cannot be built here. */
export function streamDecoderBinary(): Promise<string | null> {
  built ??= build()
    .catch(() => null)
    .then((path) => {
      result = path
      return path
    })
  return built
}

/** Whether a build was tried here and failed (no caller need be offered the decoder again). */
export const streamDecoderUnbuildable = (): boolean => result === null

async function build(): Promise<string> {
  const { stdout } = await run('pkg-config', ['--cflags', '--libs', 'pocketsphinx'])
  const flags = stdout.trim().split(/\s+/)
  const source = await readFile(SOURCE)
  const hash = createHash('sha256').update(source).update(flags.join(' ')).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), 'speech-studio-native')
  const binary = join(dir, `ps-stream-${hash}`)
  const exists = await access(binary).then(
    () => true,
    () => false,
  )
  if (exists) return binary
  await mkdir(dir, { recursive: true })
  const partial = `${binary}.${process.pid}.${Date.now()}`
  try {
    await run('cc', ['-O2', '-o', partial, SOURCE, ...flags])
    await rename(partial, binary)
  } finally {
    await rm(partial, { force: true })
  }
  return binary
}
