import { type QueryClient, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { AUDIT_KEY, type AuditEvent, auditLogQuery, auditOriginsQuery } from '../../api/audit.ts'
import { consentsQuery } from '../../api/consents.ts'
import { savedVoicesQuery, VOICES_KEY } from '../../api/voices.ts'

/**
 * Server state of the voices page, in the app's one react-query cache, with the query keys of its resource files
 * (src/api/voices.ts, consents.ts, audit.ts). Every voice catalog query in the app (this page's saved voices, the
 * script page's voice picker) has a key under VOICES_KEY, so invalidating it refreshes them all after a voice is
 * created or deleted or a consent revoked.
 */

export function useSavedVoices() {
  return useQuery(savedVoicesQuery)
}

export function useConsents() {
  return useInfiniteQuery(consentsQuery)
}

/** Where each live consent and voice came from (the audit trail's creation events), by id. */
export function useOrigins() {
  return useQuery({
    ...auditOriginsQuery,
    select: (events) => new Map(events.map((e) => [e.upstream_id, e])),
  })
}

export function useAuditLog() {
  return useInfiniteQuery(auditLogQuery)
}

/** Refreshes everything a consent or voice change touches, on every page that shows it. */
export async function refreshAfterChange(queryClient: QueryClient): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: VOICES_KEY }),
    queryClient.invalidateQueries({ queryKey: consentsQuery.queryKey }),
    queryClient.invalidateQueries({ queryKey: AUDIT_KEY }),
  ])
}

/** Takes a revoked consent and its voices out of the cached lists at once, before the refetch confirms it. */
export function forgetConsent(queryClient: QueryClient, consentId: string): void {
  queryClient.setQueryData(savedVoicesQuery.queryKey, (voices) =>
    voices?.filter((v) => v.consent !== consentId),
  )
  queryClient.setQueryData(
    consentsQuery.queryKey,
    (cached) =>
      cached && {
        ...cached,
        pages: cached.pages.map((page) => ({ ...page, data: page.data.filter((c) => c.id !== consentId) })),
      },
  )
}

export function forgetVoice(queryClient: QueryClient, voiceId: string): void {
  queryClient.setQueryData(savedVoicesQuery.queryKey, (voices) => voices?.filter((v) => v.id !== voiceId))
}

export type Origins = Map<string, AuditEvent>
