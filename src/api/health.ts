import { queryOptions } from '@tanstack/react-query'
import { type Health, healthSchema } from '../../schema/index.ts'
import { apiJson } from './http.ts'

/** The studio backend's health report (`GET /api/health`, shape in `schema/health.ts`). */

export type { EngineName, Health } from '../../schema/index.ts'

/** How often the app shell asks again: a service that stops or comes back shows within this time. */
const HEALTH_REFRESH_MS = 30_000

export const healthQuery = queryOptions({
  queryKey: ['health'] as const,
  queryFn: ({ signal }): Promise<Health> => apiJson('/health', (b) => healthSchema.parse(b), { signal }),
  refetchInterval: HEALTH_REFRESH_MS,
  staleTime: HEALTH_REFRESH_MS,
})
