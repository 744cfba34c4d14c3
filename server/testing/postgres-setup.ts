import { Redis } from 'ioredis'
import pg from 'pg'

/**
 * Global setup of the `postgres` test project (vite.config.ts): PostgreSQL and Redis must answer before any suite
 * runs, or the whole project fails with one clear message. CI and every development machine run both.
 */
export default async function checkServices() {
  const databaseUrl = process.env.STUDIO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const redisUrl = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
  } catch (err) {
    throw new Error(
      `The postgres test project needs PostgreSQL at ${databaseUrl} (STUDIO_TEST_DATABASE_URL): ${(err as Error).message}`,
    )
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 5000 })
  try {
    await redis.connect()
    await redis.ping()
  } catch (err) {
    throw new Error(
      `The postgres test project needs Redis at ${redisUrl} (STUDIO_TEST_REDIS_URL): ${(err as Error).message}`,
    )
  } finally {
    redis.disconnect()
  }
}
