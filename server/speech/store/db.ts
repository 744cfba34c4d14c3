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
  // Consents and saved voices (spec 2.3, 2.5, 3). A voice's consent row cascades its deletion, so no voice can
  // outlive its consent; the files of both live under voices/<id> and consents/<id> (voice-files.ts).
  `CREATE TABLE consents (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     owner_id TEXT NOT NULL,
     name TEXT NOT NULL,
     language TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX consents_by_owner ON consents(owner_id, seq);
   CREATE TABLE voices (
     id TEXT PRIMARY KEY,
     owner_id TEXT NOT NULL,
     name TEXT NOT NULL,
     consent_id TEXT REFERENCES consents(id) ON DELETE CASCADE,
     language TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     prepared_version TEXT NOT NULL,
     prepared TEXT NOT NULL
   );
   CREATE INDEX voices_by_owner ON voices(owner_id, created_at);
   CREATE INDEX voices_by_consent ON voices(consent_id);`,
  // The realtime session configuration minted with an ephemeral client secret (POST /v1/realtime/client_secrets),
  // applied when a socket opens with that ek_ credential (store/client-secrets.ts).
  `CREATE TABLE client_secret_sessions (
     key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
     session TEXT NOT NULL
   );`,
]

/** Key hashes and who owns which voice: readable by the service's user only (openDatabase makes the files private). */
export function openSpeechDb(dir: string): Db {
  return openDatabase(dir, 'speech.db', MIGRATIONS)
}
