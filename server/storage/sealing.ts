import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE_MODE } from './private-files.ts'

/**
 * Envelope encryption for stored artifacts (docs/security.md, "Erasure"): each artifact is sealed with AES-256-GCM
 * under its own random data key, and the data key is kept wrapped by the master key, which never enters a database.
 * Erasing an artifact deletes its wrapped data key; whatever copies of the ciphertext remain (WAL frames, free pages,
 * dead tuples, backups, replicas) can then no longer be opened. Part of the storage layer: both servers use it.
 */

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
/** The first byte of everything sealed here, so another format can follow. */
const FORMAT = 1
const WRAP_CONTEXT = 'speech-studio data key'

/** A master key: 32 bytes, and its id (written into every key it wraps, so a key can say which master opens it). */
export interface MasterKey {
  bytes: Buffer
  id: string
}

export function masterKey(bytes: Buffer): MasterKey {
  if (bytes.length !== KEY_BYTES) throw new Error(`a master key is ${KEY_BYTES} bytes, got ${bytes.length}`)
  // A one-way id: the key's fingerprint, which reveals nothing of it.
  const id = createHmac('sha256', bytes).update('speech-studio master key id').digest('hex').slice(0, 16)
  return { bytes, id }
}

/** A master key written as base64 (44 characters), as in the environment. */
export function parseMasterKey(text: string): MasterKey {
  const bytes = Buffer.from(text.trim(), 'base64')
  if (bytes.length !== KEY_BYTES || bytes.toString('base64') !== text.trim())
    throw new Error(`a master key is ${KEY_BYTES} bytes written as base64 (openssl rand -base64 32)`)
  return masterKey(bytes)
}

/**
 * The master key kept in `file` (base64, mode 0600), made on first use. The file is created exclusively, so two
 * processes starting at once on one data directory end with the same key.
 */
export function masterKeyFile(file: string): MasterKey {
  try {
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, {
      flag: 'wx',
      mode: PRIVATE_FILE_MODE,
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  return parseMasterKey(readFileSync(file, 'utf8'))
}

/**
 * The master keys given in configuration (base64: the current one and those it replaced, during a rotation), or the
 * key file `keyFile` of `dataDir`, made on first use.
 */
export function sealerOf(opts: {
  dataDir: string
  keyFile: string
  masterKey?: string | undefined
  previousMasterKeys?: readonly string[] | undefined
}): Sealer {
  const current = opts.masterKey
    ? parseMasterKey(opts.masterKey)
    : masterKeyFile(join(opts.dataDir, opts.keyFile))
  return new Sealer(current, (opts.previousMasterKeys ?? []).map(parseMasterKey))
}

/** The master keys a process holds: the one it wraps new keys with, and those it can still unwrap with. */
export class Sealer {
  private readonly byId: Map<string, MasterKey>

  constructor(
    readonly current: MasterKey,
    previous: readonly MasterKey[] = [],
  ) {
    this.byId = new Map([...previous, current].map((k) => [k.id, k]))
  }

  /** Whether this process can unwrap keys wrapped by master key `id`. */
  holds(id: string): boolean {
    return this.byId.has(id)
  }

  /** A new data key, and the same wrapped for storage. */
  newDataKey(): { key: Buffer; wrapped: Buffer } {
    const key = randomBytes(KEY_BYTES)
    return { key, wrapped: this.wrap(key) }
  }

  /** `key` wrapped by the current master key: its id, then the key sealed under it. */
  wrap(key: Buffer): Buffer {
    const id = Buffer.from(this.current.id, 'hex')
    return Buffer.concat([id, seal(this.current.bytes, key, WRAP_CONTEXT)])
  }

  unwrap(wrapped: Uint8Array): Buffer {
    const id = Sealer.masterIdOf(wrapped)
    const master = this.byId.get(id)
    if (!master)
      throw new SealingError(`a data key wrapped by master key ${id}, which this process does not hold`)
    return open(master.bytes, wrapped.subarray(8), WRAP_CONTEXT)
  }

  /** The same data key wrapped by the current master key (rotation); null when it already is. */
  rewrapped(wrapped: Uint8Array): Buffer | null {
    return Sealer.masterIdOf(wrapped) === this.current.id ? null : this.wrap(this.unwrap(wrapped))
  }

  /**
   * Refuses a database whose data keys were wrapped by master key `recorded` when this process holds neither it nor
   * it as a previous key: it could seal what the other instances cannot open. `what` names the data, `variable`
   * where the key is given.
   */
  assertHolds(recorded: string, what: string, variable: string): void {
    if (!this.holds(recorded))
      throw new SealingError(
        `this database's ${what} is sealed with master key ${recorded}, not ${this.current.id}: give every instance the same ${variable} (docs/security.md)`,
      )
  }

  /** Which master key wrapped `wrapped` (rotation rewraps those not wrapped by the current one). */
  static masterIdOf(wrapped: Uint8Array): string {
    return Buffer.from(wrapped.buffer, wrapped.byteOffset, 8).toString('hex')
  }
}

export class SealingError extends Error {
  override name = 'SealingError'
}

/**
 * `plain` sealed under `key`: format byte, IV, tag, ciphertext. `context` (what the artifact is and whose) is
 * authenticated, so sealed bytes moved to another row do not open there.
 */
export function seal(key: Buffer, plain: Uint8Array, context: string): Buffer {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context))
  const body = Buffer.concat([cipher.update(plain), cipher.final()])
  return Buffer.concat([Buffer.of(FORMAT), iv, cipher.getAuthTag(), body])
}

export function open(key: Buffer, sealed: Uint8Array, context: string): Buffer {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength)
  if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== FORMAT) throw new SealingError('not sealed data')
  const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(1, 1 + IV_BYTES))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES))
  try {
    return Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()])
  } catch {
    throw new SealingError(`sealed data for ${context} does not open with its key`)
  }
}
