import { Readable } from 'node:stream'
import type { Kysely } from 'kysely'
import type { Dialect } from './index.ts'

/**
 * Recordings kept in the database itself, cut into chunks of one MiB: every instance of a part reads what another
 * wrote (no shared folder to mount), a byte range reads only the chunks it covers (a player seeking in a long
 * recording), and a recording is written as it arrives without holding it whole in memory. Deleting the owner's row
 * and its chunks in one transaction leaves nothing behind; chunks written for a row that never came (a crash between
 * the last chunk and the row) are swept by age.
 *
 * PostgreSQL stores each chunk as `bytea` (TOAST keeps it out of line, compressed when that helps); SQLite as a BLOB.
 * One MiB keeps a chunk well under both engines' comfortable row sizes and a range read within one or two rows.
 */

export const BLOB_CHUNK_BYTES = 1 << 20

/** The columns of a chunk table, for a part's table types. */
export interface BlobChunkRow {
  blob_key: string
  seq: number
  bytes: Uint8Array
  created_at: number
}

export class BlobTooLargeError extends Error {}

/** A migration step: the chunk table `table`, keyed by blob and chunk number. */
export async function createBlobTable(db: Kysely<unknown>, dialect: Dialect, table: string): Promise<void> {
  await db.schema
    .createTable(table)
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint(`${table}_pk`, ['blob_key', 'seq'])
    .execute()
}

export class BlobStore {
  constructor(
    // Kysely<any>: the table is a parameter (fixed by the part's code, never by a request), so no one schema type fits.
    // biome-ignore lint/suspicious/noExplicitAny: the chunk table's name is chosen by the caller
    private readonly db: Kysely<any>,
    private readonly table: string,
    private readonly chunkBytes = BLOB_CHUNK_BYTES,
  ) {}

  /**
   * Writes `source` under `key` in chunks as it arrives; more than `maxBytes` stops, removes what was written and
   * throws BlobTooLargeError. A source that fails removes what was written too. Returns the size.
   */
  async put(
    key: string,
    source: AsyncIterable<Uint8Array>,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<number> {
    const now = Date.now()
    let seq = 0
    let total = 0
    let pending: Uint8Array[] = []
    let pendingBytes = 0
    const flush = async (all: boolean) => {
      while (pendingBytes >= this.chunkBytes || (all && pendingBytes > 0)) {
        const joined = Buffer.concat(pending, pendingBytes)
        const chunk = joined.subarray(0, Math.min(this.chunkBytes, joined.length))
        const rest = joined.subarray(chunk.length)
        await this.db
          .insertInto(this.table)
          .values({ blob_key: key, seq, bytes: chunk, created_at: now })
          .execute()
        seq += 1
        pending = rest.length > 0 ? [rest] : []
        pendingBytes = rest.length
      }
    }
    try {
      for await (const piece of source) {
        total += piece.length
        if (total > maxBytes) throw new BlobTooLargeError(`The recording is larger than ${maxBytes} bytes.`)
        pending.push(piece)
        pendingBytes += piece.length
        await flush(false)
      }
      await flush(true)
      return total
    } catch (err) {
      await this.delete(key).catch(() => {}) // the caller's error is the one to report
      throw err
    }
  }

  /** The whole blob in memory (for a recording forwarded in one request); null when there is none. */
  async read(key: string): Promise<Buffer<ArrayBuffer> | null> {
    const rows = await this.db
      .selectFrom(this.table)
      .select('bytes')
      .where('blob_key', '=', key)
      .orderBy('seq')
      .execute()
    if (rows.length === 0) return null
    return Buffer.concat(rows.map((r) => r.bytes as Uint8Array))
  }

  /** Whether any chunk of `key` exists. */
  async has(key: string): Promise<boolean> {
    const row = await this.db
      .selectFrom(this.table)
      .select('seq')
      .where('blob_key', '=', key)
      .limit(1)
      .executeTakeFirst()
    return row !== undefined
  }

  /**
   * Bytes `start`..`end` (inclusive) of `key`, read a chunk at a time as the consumer takes them, so a slow client
   * holds one chunk, not the recording. The caller knows the size (it is stored with the owner's row).
   */
  stream(key: string, start: number, end: number): Readable {
    const { db, table, chunkBytes } = this
    async function* chunks() {
      for (let seq = Math.floor(start / chunkBytes); seq <= Math.floor(end / chunkBytes); seq++) {
        const row = await db
          .selectFrom(table)
          .select('bytes')
          .where('blob_key', '=', key)
          .where('seq', '=', seq)
          .executeTakeFirst()
        if (!row) throw new Error(`blob ${key} has no chunk ${seq}`)
        const bytes = Buffer.from(row.bytes as Uint8Array)
        const from = seq * chunkBytes
        yield bytes.subarray(Math.max(0, start - from), Math.min(bytes.length, end - from + 1))
      }
    }
    return Readable.from(chunks(), { objectMode: false })
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom(this.table).where('blob_key', '=', key).execute()
  }

  /**
   * Removes chunks older than `olderThanMs` whose key `isKept` does not claim: what a crash left between the last
   * chunk and the owner's row. The age guard spares recordings another instance is writing right now.
   */
  async sweep(isKept: (keys: string[]) => Promise<Set<string>>, olderThanMs: number, now = Date.now()) {
    const rows = await this.db
      .selectFrom(this.table)
      .select('blob_key')
      .distinct()
      .where('created_at', '<', now - olderThanMs)
      .execute()
    const keys = rows.map((r) => r.blob_key as string)
    if (keys.length === 0) return 0
    const kept = await isKept(keys)
    const orphans = keys.filter((k) => !kept.has(k))
    for (const key of orphans) await this.delete(key)
    return orphans.length
  }
}
