import type Database from 'better-sqlite3'
import { openDatabase } from '../../sqlite.ts'

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
  return openDatabase(dir, 'speech.db', MIGRATIONS)
}
