import { randomUUID } from 'node:crypto'
import type { SharedLimitsOptions } from '../speech/limits/pools.ts'

/**
 * The limits of a speech service under test: in the `postgres` project (which makes sure Redis answers) they are kept
 * in Redis under a prefix of the test's own, as a deployment with `REDIS_URL` keeps them, so a suite that runs in both
 * projects proves one instance behaves the same with either; elsewhere in memory (undefined).
 */
export function testSharedLimits(): SharedLimitsOptions | undefined {
  if (process.env.STUDIO_TEST_DATABASE !== 'postgres') return undefined
  return {
    url: process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    prefix: `test:speech-limits:${randomUUID()}:`,
  }
}
