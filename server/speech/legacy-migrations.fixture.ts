/**
 * speech.db as the service wrote it before the shared storage layer: these three numbered migrations, counted in
 * `PRAGMA user_version`, run by server/sqlite.ts, with the audio of consents and voices in files under
 * `DATA_DIR/voice-store/`. Kept verbatim (from server/speech/store/db.ts of that release) so the upgrade test opens a
 * data directory written exactly as then.
 */
export const LEGACY_SPEECH_MIGRATIONS: string[] = [
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
  // Consents and saved voices (contract 2.3, 2.5, 3). A voice's consent row cascades its deletion, so no voice can
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
