import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

/**
 * Tests of what the studio backend and the speech service keep: run once on SQLite (default) and once on PostgreSQL
 * (`postgres`).
 */
const STORAGE_SUITES = [
  'server/storage/**/*.test.ts',
  'server/studio/**/*.http.test.ts',
  'server/studio/**/*.ws.test.ts',
  'server/studio/users-cli.test.ts',
  'server/studio/live-recorder.test.ts',
  'server/studio/store/*.test.ts',
  // The speech service's stores and every suite that talks to it over HTTP or WebSocket (server/testing/speech-database.ts).
  'server/speech/store/*.test.ts',
  'server/speech/**/*.http.test.ts',
  'server/speech/**/*.ws.test.ts',
]
/** Several backend instances on one PostgreSQL and one Redis: only in the `postgres` project. */
const CLUSTER_SUITES = ['server/**/*.cluster.test.ts']

const ALL_TESTS = ['src/**/*.test.{ts,tsx}', 'server/**/*.test.ts', 'schema/**/*.test.ts']

/**
 * `unit` is the edit–test loop (`npx vitest run --project unit`, well under a minute): tests that run in this process
 * alone — no server listening, no meeting or speaker recordings read, no child process, no eSpeak worker pool, no
 * Chromium. Everything else is `integration`. A test file says which it is by its name when it can:
 * `*.http.test.ts` and `*.ws.test.ts` start a server and talk to it, `*.listening.test.ts` listens on a port,
 * `*.cluster.test.ts` starts several backends (postgres only). The rest that are integration are listed here by
 * name, each with why, and so are the storage suites, which the postgres project runs again.
 */
const INTEGRATION_BY_NAME = [
  '**/*.http.test.ts',
  '**/*.ws.test.ts',
  '**/*.listening.test.ts',
  ...STORAGE_SUITES,
  // Child processes: ffmpeg makes the codec fixtures, PocketSphinx is a subprocess, the CLI and crash tests run tsx,
  // the lint test runs Biome.
  'server/engine/codecs/decode.test.ts',
  'server/engine/codecs/encode.test.ts',
  'server/engine/codecs/aac-optional.test.ts',
  'server/engine/recognition/pocketsphinx.test.ts',
  'server/speech/store/voices-crash.test.ts',
  'server/studio/users-cli.test.ts',
  'server/lint-boundaries.test.ts',
  // Servers started in the test: the speech service and the studio backend in front of it.
  'server/logging.test.ts',
  'server/studio/retry.test.ts',
  // Real recordings: the AMI meeting excerpts and the FSDD speakers (server/testing/meetings.ts, speakers.ts).
  'server/engine/diarization/diarizer.test.ts',
  'server/engine/speaker/speaker.test.ts',
  // An eSpeak worker pool synthesizing real speech: seconds each (time-stretch and cloning about 20 s).
  'server/engine/speak.test.ts',
  'server/engine/espeak/pool.test.ts',
  'server/engine/time-stretch.test.ts',
  'server/engine/cloning/cloning.test.ts',
  'server/engine/speaker/screen.test.ts',
  'server/engine/vad/vad.test.ts',
]

export default defineConfig({
  plugins: [react()],
  // The largest chunks are the WASM audio encoders (AAC about 1 MB), loaded only when a take is downloaded.
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1100 },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
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
