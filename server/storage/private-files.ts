import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs'

/**
 * What either server keeps on disk — its database, consent recordings, voice samples, speaker embeddings, transcript
 * audio — is for the server's user alone: folders 0700, files 0600. Modes are set explicitly after creation, so a
 * permissive umask changes nothing, and set again on start-up, so data written by an older version is closed off too.
 * Part of the storage layer, so it depends on neither server.
 */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** Creates `path` (and missing parents) if needed and makes it 0700. */
export function privateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE })
  chmodSync(path, PRIVATE_DIR_MODE)
}

/** Creates `path` empty if it does not exist (never truncates) and makes it 0600. */
export function privateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE))
  chmodSync(path, PRIVATE_FILE_MODE)
}

/** Makes `path` 0600 if it exists. */
export function closeOff(path: string): void {
  if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE)
}

/** Opens a new file for writing, 0600 whatever the umask. */
export function openPrivate(path: string): number {
  const fd = openSync(path, 'w', PRIVATE_FILE_MODE)
  fchmodSync(fd, PRIVATE_FILE_MODE)
  return fd
}
