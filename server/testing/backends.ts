/**
 * Which storage the studio's tests run on: SQLite (a throwaway studio.db) by default, PostgreSQL with
 * `STUDIO_TEST_DATABASE=postgres` — the `postgres` project of vite.config.ts runs the same suites that way. Each
 * studio then gets a fresh schema in `STUDIO_TEST_DATABASE_URL` (default the local `test` database), dropped when it
 * closes. A PostgreSQL that cannot be reached fails the tests; it never skips them.
 */
export const TEST_BACKEND: 'sqlite' | 'postgres' =
  process.env.STUDIO_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite'
export const TEST_DATABASE_URL =
  process.env.STUDIO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
/** The Redis of the tests that need one (the shared sign-in limit). */
export const TEST_REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
