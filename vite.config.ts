import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

/**
 * The suites the `postgres` project runs a second time, on PostgreSQL (and with the speech limits in Redis): those whose
 * subject is what is kept. Every other suite runs once, on SQLite, in `integration` — recognition, streaming, formats
 * and limits do not change with the database. A new `*.http.test.ts`, `*.ws.test.ts` or store test under server/ must
 * be named in one of the two tables (server/postgres-suites.test.ts fails otherwise), with why.
 */
export const ON_POSTGRES: Record<string, string> = {
  'server/storage/storage.integration.test.ts':
    'the storage layer itself: unreachable database, connections cut, migrations',
  'server/storage/blobs.integration.test.ts': 'chunked blobs in the database',
  'server/studio/database.integration.test.ts':
    "the studio's stores: several instances, case-insensitive names, revisions",
  'server/studio/auth/users-cli.integration.test.ts': 'the users CLI writes users into the database',
  'server/studio/live/recorder.integration.test.ts':
    'a live session saved as a stored transcript with its audio',
  'server/studio/audit/routes.http.test.ts': 'the audit trail is stored rows',
  'server/studio/consent-requests/routes.http.test.ts':
    'consent links: hashed tokens, one use held by a conditional update, expiry and revocation in the database',
  'server/studio/scripts/routes.http.test.ts': 'scripts: owner-scoped storage, revision-guarded saves',
  'server/studio/takes/routes.http.test.ts': 'takes: stored audio, caps by count and bytes, stars',
  'server/studio/takes/erasure.integration.test.ts':
    'sealed take audio and its erasure: key rows, WAL checkpoint (SQLite), VACUUM (PostgreSQL), 0012 sealing',
  'server/studio/pronunciations/routes.http.test.ts':
    'the shared lexicon: one entry per word and case rule, imports kept whole',
  'server/studio/transcripts/routes.http.test.ts':
    'saved transcripts with their audio, label edits on a revision',
  'server/studio/studio.http.test.ts':
    'users and sessions kept in the database: sign-in, sign-out, revocation',
  'server/studio/fuzz.http.test.ts':
    'hostile text (NUL, control characters) reaching the stores, refused differently',
  'server/speech/access/key-store.integration.test.ts': 'the key store',
  'server/speech/database-adoption.integration.test.ts': 'old data directories adopted; a PostgreSQL case',
  'server/speech/voices/erasure.integration.test.ts':
    'sealed voice data and its erasure: key tables, WAL checkpoint (SQLite), VACUUM (PostgreSQL)',
  'server/speech/voices/voice-store-crash.integration.test.ts':
    'voice and consent rows and audio under SIGKILL, one transaction each',
  'server/speech/database.http.test.ts':
    'the service with its database reported, and cut off (PostgreSQL only)',
  'server/speech/voices/voices.http.test.ts':
    'consents and voices: stored, listed, paged, deleted with their audio',
  'server/speech/access/key-rules.http.test.ts': 'the keys CLI and ephemeral keys deleted from the store',
  'server/speech/synthesis/redirect.http.test.ts':
    'continuations stored, served once by another instance on the database',
  'server/speech/limits/limits.http.test.ts': 'the slots kept in Redis for one instance, as with REDIS_URL',
  'server/speech/limits/slot-leases.http.test.ts': 'slot leases in Redis; a stored voice prepared again',
  'server/speech/fuzz.http.test.ts':
    'hostile values (NUL, lone surrogates) reaching the stores, refused differently',
}
/** Suites that run on SQLite only, each with why the database is not their subject. */
export const SQLITE_ONLY: Record<string, string> = {
  'server/studio/refusals.http.test.ts': 'every route refusing in the error envelope (before any store)',
  'server/multipart.http.test.ts': 'the one multipart reader of both servers (before any store)',
  'server/studio/proxy/redirect.http.test.ts':
    "the proxy's rewriting of a continuation (stored: speech redirect suite)",
  'server/studio/security.http.test.ts': 'Host and Origin checks, CSRF, in-process sign-in limits, headers',
  'server/studio/proxy/server-timing.http.test.ts': 'timing headers on a proxied stream',
  'server/studio/proxy/upstream-abort.http.test.ts': 'a cancelled request ending at the service',
  'server/studio/proxy/tts-live.ws.test.ts': 'live text through the socket bridge',
  'server/studio/live/calls.http.test.ts': 'the WebRTC call relay (whose call it is: in process)',
  'server/speech/access/client-secrets.http.test.ts':
    'secret minting and WebRTC signalling (ephemeral keys: key store)',
  'server/speech/synthesis/cloning.http.test.ts': 'one-request cloning, never stored',
  'server/speech/synthesis/duration.http.test.ts': 'the request duration limit',
  'server/speech/synthesis/audio-formats.http.test.ts': 'response formats and encoders',
  'server/speech/hardening.http.test.ts': 'multipart parsing, router errors, aborted clients, file modes',
  'server/speech/synthesis/openai-sdk.http.test.ts': 'the OpenAI SDK against the speech route',
  'server/speech/openapi.http.test.ts': 'the published OpenAPI document',
  'server/speech/synthesis/speech.http.test.ts':
    'speech synthesis and its errors (keys: key store, key-rules)',
  'server/speech/synthesis/speakable.http.test.ts':
    'digit runs, scripts, emoji and unspeakable text: audio or a 400, never silence',
  'server/speech/transcription/transcriptions.http.test.ts':
    'upload recognition and diarization (jobs: the cluster suite)',
  'server/speech/voices/voices-real.http.test.ts': 'speaker verification quality on real recordings',
  'server/speech/synthesis/warm-up.http.test.ts': 'the engine warm-up',
  'server/speech/transcription/realtime/stt-realtime.ws.test.ts':
    'realtime recognition, turn detection, diarization, capacity',
  'server/speech/synthesis/tts-realtime.ws.test.ts': 'the text-input socket (stored voices: voices suite)',
  'server/speech/transcription/realtime/early-words.ws.test.ts': 'live words while a turn goes on',
  'server/speech/transcription/realtime/calls.http.test.ts':
    'WebRTC calls: media, data channel, slot lifetime',
  'server/speech/transcription/segments.http.test.ts': 'segment and subtitle sizes',
  'server/speech/transcription/alignments.http.test.ts': 'forced alignment of given words, never stored',
  'server/speech/transcription/speakers.http.test.ts': 'who spoke when on real people (the diarizer)',
}
const STORAGE_SUITES = Object.keys(ON_POSTGRES)
/** Several backend instances on one PostgreSQL and one Redis: only in the `postgres` project. */
const CLUSTER_SUITES = ['server/**/*.cluster.test.ts']

const ALL_TESTS = [
  'src/**/*.test.{ts,tsx}',
  'server/**/*.test.ts',
  'schema/**/*.test.ts',
  'core/**/*.test.ts',
]

/**
 * `unit` is the edit–test loop (`npx vitest run --project unit`, well under a minute): tests that run in this process
 * alone — no server listening, no meeting or speaker recordings read, no child process, no eSpeak worker pool, no
 * Chromium. Everything else is `integration`, and a test file says which it is by its name alone: `*.http.test.ts`
 * and `*.ws.test.ts` start a server and talk to it, `*.listening.test.ts` listens on a port, `*.integration.test.ts`
 * does any of the rest (a store on disk, a child process, real recordings, an eSpeak pool), `*.cluster.test.ts` starts
 * several backends (postgres only). server/postgres-suites.test.ts holds the storage suites to these names.
 */
const INTEGRATION_BY_NAME = ['**/*.{http,ws,listening,integration}.test.ts']

export default defineConfig({
  plugins: [react()],
  // The largest chunks are the WASM audio encoders (AAC about 1 MB), loaded only when a take is downloaded.
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1100 },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default on 2 cores is one file at a time (cores − 1). Most integration files spend their time waiting
    // on real time (audio streamed at its pace, heartbeats, child processes starting), so two at once on 2 cores.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL_TESTS,
          exclude: ['**/node_modules/**', ...INTEGRATION_BY_NAME, ...CLUSTER_SUITES],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION_BY_NAME,
          // Real servers, engines and subprocesses on a shared 2-core machine: one more try for a test that lost a
          // race with the machine's load. A test that fails twice fails the run; the unit project never retries.
          retry: 1,
          exclude: ['**/node_modules/**', ...CLUSTER_SUITES],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...STORAGE_SUITES, ...CLUSTER_SUITES],
          retry: 1,
          env: { STUDIO_TEST_DATABASE: 'postgres' },
          // PostgreSQL and Redis must answer: an unreachable one fails this project, it never skips it.
          globalSetup: ['server/testing/postgres-setup.ts'],
        },
      },
    ],
  },
})
