/**
 * studio.db as the studio wrote it before the shared storage layer: these five numbered migrations, counted in
 * `PRAGMA user_version`, run by server/sqlite.ts. Kept verbatim (from server/studio/store/db.ts of that release) so
 * the upgrade test opens a database written exactly as then.
 */
export const LEGACY_STUDIO_MIGRATIONS: string[] = [
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
  // The audit trail of consents and voices created and deleted through the studio (server/studio/audit/routes.ts).
  `CREATE TABLE audit_events (
     id INTEGER PRIMARY KEY,
     at INTEGER NOT NULL,
     user_name TEXT NOT NULL,
     user_role TEXT NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('consent', 'voice')),
     action TEXT NOT NULL CHECK (action IN ('created', 'deleted', 'revoked')),
     upstream_id TEXT NOT NULL,
     name TEXT,
     consent_id TEXT
   );
   CREATE INDEX audit_events_upstream ON audit_events (upstream_id);
   CREATE INDEX audit_events_consent ON audit_events (consent_id);`,
  // Saved transcripts (server/studio/transcripts/store.ts): the service's result as it came, never updated; the
  // reviewers' label edits in their own table; the audio in DATA_DIR/transcripts/.
  `CREATE TABLE transcripts (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     source TEXT NOT NULL CHECK (source IN ('upload', 'live')),
     created_at INTEGER NOT NULL,
     created_by TEXT NOT NULL,
     audio_file TEXT NOT NULL,
     audio_type TEXT NOT NULL,
     audio_bytes INTEGER NOT NULL,
     duration REAL,
     diarization_status TEXT,
     speakers INTEGER NOT NULL,
     turns INTEGER NOT NULL,
     result TEXT NOT NULL,
     peaks TEXT
   );
   CREATE INDEX transcripts_created ON transcripts (created_at);
   CREATE TABLE transcript_labels (
     transcript_id TEXT PRIMARY KEY REFERENCES transcripts(id) ON DELETE CASCADE,
     edits TEXT NOT NULL,
     revision INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     updated_by TEXT NOT NULL
   );`,
  // Voice designers' scripts (server/studio/scripts/store.ts): each owner's own, saved whole under a revision counter.
  `CREATE TABLE scripts (
     id TEXT PRIMARY KEY,
     owner TEXT NOT NULL,
     title TEXT NOT NULL,
     document TEXT NOT NULL,
     characters INTEGER NOT NULL,
     lines INTEGER NOT NULL,
     revision INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX scripts_owner_updated ON scripts (owner, updated_at);`,
]
