import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { StudioStorage } from '../studio/database.ts'
import { openTestStorage } from '../testing/studio.ts'
import { BlobStore, BlobTooLargeError } from './blobs.ts'

// The studio's own storage (SQLite, or PostgreSQL in the `postgres` project) carries a chunk table from its migrations.
const dir = mkdtempSync(join(tmpdir(), 'blobs-'))
let storage: StudioStorage
let blobs: BlobStore
beforeAll(async () => {
  storage = await openTestStorage(dir)
  blobs = new BlobStore(storage.db, 'transcript_audio', 10) // ten-byte chunks: every boundary is exercised
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
async function* pieces(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part)
}

describe('chunked blobs in the database', () => {
  it('keeps what arrives in uneven pieces and gives back the whole or any byte range', async () => {
    expect(await blobs.put('a', pieces('abc', 'defghijklmnopq', 'r', 'stuvwxyz0123456789'))).toBe(36)
    expect((await blobs.read('a'))?.toString()).toBe(ALPHABET)
    for (const [start, end] of [
      [0, 35],
      [0, 0],
      [9, 10],
      [10, 19],
      [13, 27],
      [35, 35],
    ] as const) {
      expect(await text(blobs.stream('a', start, end))).toBe(ALPHABET.slice(start, end + 1))
    }
  })

  it('stops at the limit and leaves nothing of what it wrote', async () => {
    await expect(blobs.put('big', pieces('0123456789', '0123456789', 'x'), 20)).rejects.toBeInstanceOf(
      BlobTooLargeError,
    )
    expect(await blobs.has('big')).toBe(false)
  })

  it('leaves nothing when the source fails midway', async () => {
    async function* broken() {
      yield Buffer.from('0123456789abcdef')
      throw new Error('connection reset')
    }
    await expect(blobs.put('cut', broken())).rejects.toThrow('connection reset')
    expect(await blobs.has('cut')).toBe(false)
  })

  it('sweeps old chunks no owner claims, and spares claimed and recent ones', async () => {
    await blobs.put('kept', pieces('kept'))
    await blobs.put('orphan', pieces('orphan'))
    const later = Date.now() + 60_000
    const swept = await blobs.sweep(async (keys) => new Set(keys.filter((k) => k !== 'orphan')), 1000, later)
    expect(swept).toBe(1)
    expect(await blobs.has('orphan')).toBe(false)
    expect(await blobs.has('kept')).toBe(true)
    expect(await blobs.sweep(async () => new Set(), 3_600_000)).toBe(0) // nothing is an hour old yet
    expect(await blobs.has('kept')).toBe(true)
  })
})
