import { z } from 'zod'

/**
 * The studio backend's `GET /api/health`: whether its speech service answers and which engines it offers. The app
 * shell polls it and says in plain words what is missing and how to fix it (src/state/health.ts).
 */

/** `embedded`: the service started inside the studio; `remote`: the one set in SVC_BASE_URL. */
export const UPSTREAM_KINDS = ['embedded', 'remote'] as const
export type UpstreamKind = (typeof UPSTREAM_KINDS)[number]

export const healthSchema = z.object({
  /** `degraded` when the service does not answer or lacks an engine. */
  status: z.enum(['ok', 'degraded']),
  upstream: z.object({ kind: z.enum(UPSTREAM_KINDS), reachable: z.boolean() }),
  engines: z.object({ synthesis: z.boolean(), recognition: z.boolean(), diarization: z.boolean() }),
})
export type Health = z.infer<typeof healthSchema>
export type EngineName = keyof Health['engines']
