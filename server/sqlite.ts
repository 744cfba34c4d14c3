import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

/**
 * Opens `dir/file` in WAL mode with foreign keys on and runs the migrations it has not seen yet, each in its own
 * transaction; the database's user_version records how many have run. Both servers keep their state this way.
 */
export function openDatabase(dir: string, file: string, migrations: readonly string[]): Database.Database {
  mkdirSync(dir, { recursive: true })
  const db = new Database(join(dir, file))
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
