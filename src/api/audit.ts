import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import {
  type AuditEvent,
  type AuditPage,
  auditOriginsSchema,
  auditPageSchema,
  consentRecordSchema,
  type TakeErasure,
  takeErasuresSchema,
} from '../../schema/index.ts'
import { apiFetch, apiJson, errorFrom } from './http.ts'

/**
 * The studio backend's audit trail of consents and voices (`server/studio/audit/routes.ts`, shapes in `schema/audit.ts`),
 * read by administrators and consent administrators.
 */

export type { AuditEvent, AuditPage, TakeErasure }

/** The root of both audit queries' keys: a consent or voice change invalidates it. */
export const AUDIT_KEY = ['audit'] as const

/** The trail, newest first (`before`: the previous page's next_before). */
async function listAudit(
  opts: { limit?: number; before?: number; signal?: AbortSignal } = {},
): Promise<AuditPage> {
  const query = new URLSearchParams()
  if (opts.limit !== undefined) query.set('limit', String(opts.limit))
  if (opts.before !== undefined) query.set('before', String(opts.before))
  return apiJson(`/audit?${query}`, (b) => auditPageSchema.parse(b), { signal: opts.signal })
}

const AUDIT_PAGE_SIZE = 25

export const auditLogQuery = infiniteQueryOptions({
  queryKey: [...AUDIT_KEY, 'log'] as const,
  queryFn: ({ pageParam, signal }) =>
    listAudit({ limit: AUDIT_PAGE_SIZE, before: pageParam ?? undefined, signal }),
  initialPageParam: null as number | null,
  getNextPageParam: (last) => (last.has_more ? last.next_before : null),
})

/** The creation event of every consent and voice still live: who made it and when. */
async function listAuditOrigins(signal?: AbortSignal): Promise<AuditEvent[]> {
  return apiJson('/audit/origins', (b) => auditOriginsSchema.parse(b).data, { signal })
}

export const auditOriginsQuery = queryOptions({
  queryKey: [...AUDIT_KEY, 'origins'] as const,
  queryFn: ({ signal }) => listAuditOrigins(signal),
})

/** What revocations erased: per designer and voice, how many takes lost their audio, newest first. */
export const auditErasuresQuery = queryOptions({
  queryKey: [...AUDIT_KEY, 'erasures'] as const,
  queryFn: ({ signal }) => apiJson('/audit/erasures', (b) => takeErasuresSchema.parse(b).data, { signal }),
})

/** One consent's whole record (`GET /api/audit/consents/:id/record`) as the JSON file to keep, with its file name. */
export async function downloadConsentRecord(consentId: string): Promise<{ blob: Blob; fileName: string }> {
  const response = await apiFetch(`/audit/consents/${encodeURIComponent(consentId)}/record`)
  if (!response.ok) throw await errorFrom(response)
  // Parsed first, so a body that is not a record is an error here rather than a file kept for years.
  const record = consentRecordSchema.parse(await response.json())
  const blob = new Blob([`${JSON.stringify(record, null, 2)}\n`], { type: 'application/json' })
  return { blob, fileName: `consent-record-${record.consent_id}.json` }
}
