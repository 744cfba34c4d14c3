import { queryOptions } from '@tanstack/react-query'
import {
  type ConsentLink,
  type ConsentLinkRecorded,
  type ConsentRequest,
  type CreatedConsentRequest,
  consentLinkRecordedSchema,
  consentLinkSchema,
  consentRequestListSchema,
  createdConsentRequestSchema,
} from '../../schema/index.ts'
import { type AudioUpload, apiJson, apiUpload, type UploadOptions } from './http.ts'

/**
 * Remote consent (server/studio/consent-requests/): a consent administrator's one-time links, and the owner's side of
 * one, which needs no session — the link's token is in the path.
 */

export type { ConsentLink, ConsentLinkRecorded, ConsentRequest, CreatedConsentRequest }

export const CONSENT_REQUESTS_KEY = ['consent-requests'] as const

/** The open requests, newest first; asked again now and then, so a link used meanwhile leaves the list. */
export const consentRequestsQuery = queryOptions({
  queryKey: CONSENT_REQUESTS_KEY,
  queryFn: ({ signal }) =>
    apiJson('/consent-requests', (b) => consentRequestListSchema.parse(b).data, { signal }),
})

export function createConsentRequest(input: {
  ownerName: string
  language: string
}): Promise<CreatedConsentRequest> {
  return apiJson('/consent-requests', (b) => createdConsentRequestSchema.parse(b), {
    method: 'POST',
    json: { owner_name: input.ownerName, language: input.language },
  })
}

export function revokeConsentRequest(id: string): Promise<unknown> {
  return apiJson(`/consent-requests/${encodeURIComponent(id)}`, (b) => b, { method: 'DELETE' })
}

/** The link's token in the owner's address (`/consent/<token>`), or null. */
export function consentLinkToken(path: string): string | null {
  const match = /^\/consent\/([A-Za-z0-9_-]{43})\/?$/.exec(path)
  return match?.[1] ?? null
}

export function consentLinkQuery(token: string) {
  return queryOptions({
    queryKey: ['consent-link', token] as const,
    queryFn: ({ signal }) =>
      apiJson(`/consent-links/${token}`, (b) => consentLinkSchema.parse(b), { signal }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  })
}

/** The owner's recording, sent through the link; the studio passes it to the service with its own key. */
export function sendConsentThroughLink(
  token: string,
  input: { recording: AudioUpload; transcript?: string | undefined },
  opts: UploadOptions = {},
): Promise<ConsentLinkRecorded> {
  const form = new FormData()
  if (input.transcript) form.set('consent_transcript', input.transcript)
  form.set('recording', input.recording.blob, input.recording.filename)
  return apiUpload(`/consent-links/${token}`, form, (b) => consentLinkRecordedSchema.parse(b), opts)
}
