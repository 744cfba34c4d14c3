import type Database from 'better-sqlite3'
import { openDatabase } from '../../sqlite.ts'

export type StudioDb = Database.Database

const MIGRATIONS: string[] = [
  `CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  `CREATE TABLE users (
     id INTEGER PRIMARY KEY,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     role TEXT NOT NULL,
     password_hash TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE sessions (
     token_hash TEXT PRIMARY KEY,
     user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
     csrf_token TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );`,
]

export function openStudioDb(dir: string): StudioDb {
  return openDatabase(dir, 'studio.db', MIGRATIONS)
}

/** Small persistent settings of the backend, such as the key it provisioned for the embedded service. */
export class Settings {
  constructor(private readonly db: StudioDb) {}

  get(name: string): string | undefined {
    return (
      this.db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined
    )?.value
  }

  set(name: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value)
  }
}
