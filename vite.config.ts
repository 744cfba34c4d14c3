import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

/** Tests of what the studio backend keeps: run once on SQLite (default) and once on PostgreSQL (`postgres`). */
const STORAGE_SUITES = [
  'server/storage/**/*.test.ts',
  'server/studio/**/*.http.test.ts',
  'server/studio/**/*.ws.test.ts',
  'server/studio/users-cli.test.ts',
  'server/studio/live-recorder.test.ts',
  'server/studio/store/*.test.ts',
]
/** Several backend instances on one PostgreSQL and one Redis: only in the `postgres` project. */
const CLUSTER_SUITES = ['server/**/*.cluster.test.ts']

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
          name: 'default',
          include: ['src/**/*.test.{ts,tsx}', 'server/**/*.test.ts', 'schema/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...CLUSTER_SUITES],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...STORAGE_SUITES, ...CLUSTER_SUITES],
          env: { STUDIO_TEST_DATABASE: 'postgres' },
          // PostgreSQL and Redis must answer: an unreachable one fails this project, it never skips it.
          globalSetup: ['server/testing/postgres-setup.ts'],
        },
      },
    ],
  },
})
