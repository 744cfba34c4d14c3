import { join } from 'node:path'
import Database from 'better-sqlite3'
import { closeOff, privateDir, privateFile } from './storage/private-files.ts'

/**
 * Opens `dir/file` in WAL mode with foreign keys on and runs the migrations it has not seen yet, each in its own
 * transaction; the database's user_version records how many have run. This is how both servers kept their state
 * before the storage layer (server/storage); it stays only so upgrade tests can write a data directory exactly as
 * those releases did (studio.db, speech.db) and prove it is adopted.
 * The file is made 0600 (in a 0700 folder) before SQLite opens it, so SQLite gives its -wal and -shm files the same
 * mode; ones left by an older version are closed off too.
 */
export function openDatabase(dir: string, file: string, migrations: readonly string[]): Database.Database {
  privateDir(dir)
  const path = join(dir, file)
  privateFile(path)
  for (const suffix of ['-wal', '-shm', '-journal']) closeOff(`${path}${suffix}`)
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  const version = db.pragma('user_version', { simple: true }) as number
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v] as string)
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
  return db
}
