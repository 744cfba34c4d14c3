import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'

export type Db = Database.Database

/** Ordered schema migrations; the database's user_version records how many have run. */
const MIGRATIONS: string[] = [
  `CREATE TABLE organizations (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL CHECK (kind IN ('organization', 'legacy', 'ephemeral')),
     org_id TEXT REFERENCES organizations(id),
     label TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     permissions TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     revoked_at INTEGER,
     CHECK ((kind = 'legacy') = (org_id IS NULL))
   );`,
]

export function openSpeechDb(dir: string): Db {
  mkdirSync(dir, { recursive: true })
  const db = new Database(join(dir, 'speech.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  const version = db.pragma('user_version', { simple: true }) as number
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v] as string)
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
  return db
}
