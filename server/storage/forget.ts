import { sql } from 'kysely'
import type { Storage } from './index.ts'

/**
 * Clears what a deletion leaves of deleted rows (sealing.ts: the wrapped data keys of erased artifacts): on SQLite the
 * write-ahead log is checkpointed and truncated (deleted pages are already overwritten, `secure_delete`), so the file
 * holds no frame of a deleted key; on PostgreSQL `tables` are vacuumed, so their dead tuples go (the bytes of an old
 * tuple may stay on disk until overwritten, as may backups and archived WAL: rotating the master key makes those
 * unreadable too, docs/security.md).
 */
export async function forgetDeleted<DB>(storage: Storage<DB>, tables: readonly string[]): Promise<void> {
  if (storage.dialect === 'postgres') {
    await sql`VACUUM ${sql.join(tables.map((t) => sql.table(t)))}`.execute(storage.db)
    return
  }
  // Busy while another connection (a CLI, say) reads an older snapshot: tried again for a while.
  for (let attempt = 0; attempt < 20; attempt++) {
    const { rows } = await sql<{ busy: number }>`PRAGMA wal_checkpoint(TRUNCATE)`.execute(storage.db)
    if (!rows[0]?.busy) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
