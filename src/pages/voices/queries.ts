import { type QueryClient, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import {
  type AuditEvent,
  listAudit,
  listAuditOrigins,
  listConsents,
  listSavedVoices,
  type SavedCatalogVoice,
  type VoiceConsent,
} from '../../api/client.ts'

/**
 * Server state of the voices page, in the app's one react-query cache. Every voice catalog query in the app (this
 * page's saved voices, the script page's voice picker) has a key starting with 'voices', so invalidating
 * VOICES_KEY refreshes them all after a voice is created or deleted or a consent revoked.
 */
export const VOICES_KEY = ['voices'] as const
export const SAVED_VOICES_KEY = ['voices', 'saved'] as const
export const CONSENTS_KEY = ['consents'] as const
export const AUDIT_KEY = ['audit'] as const

export const CONSENT_PAGE_SIZE = 20
export const AUDIT_PAGE_SIZE = 25

export function useSavedVoices() {
  return useQuery({ queryKey: SAVED_VOICES_KEY, queryFn: ({ signal }) => listSavedVoices(signal) })
}

export function useConsents() {
  return useInfiniteQuery({
    queryKey: CONSENTS_KEY,
    queryFn: ({ pageParam, signal }) =>
      listConsents({ limit: CONSENT_PAGE_SIZE, after: pageParam ?? undefined, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.has_more ? last.last_id : null),
  })
}

/** Where each live consent and voice came from (the audit trail's creation events), by id. */
export function useOrigins() {
  return useQuery({
    queryKey: [...AUDIT_KEY, 'origins'],
    queryFn: ({ signal }) => listAuditOrigins(signal),
    select: (events) => new Map(events.map((e) => [e.upstream_id, e])),
  })
}

export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: [...AUDIT_KEY, 'log'],
    queryFn: ({ pageParam, signal }) =>
      listAudit({ limit: AUDIT_PAGE_SIZE, before: pageParam ?? undefined, signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.has_more ? last.next_before : null),
  })
}

/** Refreshes everything a consent or voice change touches, on every page that shows it. */
export async function refreshAfterChange(queryClient: QueryClient): Promise<void> {
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: VOICES_KEY }),
    queryClient.invalidateQueries({ queryKey: CONSENTS_KEY }),
    queryClient.invalidateQueries({ queryKey: AUDIT_KEY }),
  ])
}

/** Takes a revoked consent and its voices out of the cached lists at once, before the refetch confirms it. */
export function forgetConsent(queryClient: QueryClient, consentId: string): void {
  queryClient.setQueryData<SavedCatalogVoice[]>(SAVED_VOICES_KEY, (voices) =>
    voices?.filter((v) => v.consent !== consentId),
  )
  queryClient.setQueryData<{ pages: Array<{ data: VoiceConsent[] }>; pageParams: unknown[] }>(
    CONSENTS_KEY,
    (cached) =>
      cached && {
        ...cached,
        pages: cached.pages.map((page) => ({ ...page, data: page.data.filter((c) => c.id !== consentId) })),
      },
  )
}

export function forgetVoice(queryClient: QueryClient, voiceId: string): void {
  queryClient.setQueryData<SavedCatalogVoice[]>(SAVED_VOICES_KEY, (voices) =>
    voices?.filter((v) => v.id !== voiceId),
  )
}

export type Origins = Map<string, AuditEvent>
