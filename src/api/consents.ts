import { infiniteQueryOptions } from '@tanstack/react-query'
import {
  type ConsentList,
  consentListSchema,
  type Deletion,
  deletionSchema,
  type VoiceConsent,
  voiceConsentSchema,
} from '../../schema/index.ts'
import { type AudioUpload, apiJson, apiUpload, type UploadOptions } from './http.ts'

/** The caller's voice consents kept by the service (contract 2.3, 4.3–4.6): list, record, delete (which revokes). */

export type { ConsentList, Deletion, VoiceConsent }

/** One page of the caller's consents, newest first (`after`: the last id of the previous page). */
async function listConsents(
  opts: { limit?: number; after?: string; signal?: AbortSignal } = {},
): Promise<ConsentList> {
  const query = new URLSearchParams()
  if (opts.limit !== undefined) query.set('limit', String(opts.limit))
  if (opts.after) query.set('after', opts.after)
  return apiJson(`/v1/audio/voice_consents?${query}`, (b) => consentListSchema.parse(b), {
    signal: opts.signal,
  })
}

const CONSENT_PAGE_SIZE = 20

/** The consents a page at a time, each page asked for after the last id of the one before. */
export const consentsQuery = infiniteQueryOptions({
  queryKey: ['consents'] as const,
  queryFn: ({ pageParam, signal }) =>
    listConsents({ limit: CONSENT_PAGE_SIZE, after: pageParam ?? undefined, signal }),
  initialPageParam: null as string | null,
  getNextPageParam: (last) => (last.has_more ? last.last_id : null),
})

/** Records a consent: the phrase spoken by the voice's owner, checked by the service (2–30 s, one speaker). */
export async function createConsent(
  input: { name: string; language: string; recording: AudioUpload; transcript?: string },
  opts: UploadOptions = {},
): Promise<VoiceConsent> {
  const form = new FormData()
  form.set('name', input.name)
  form.set('language', input.language)
  if (input.transcript) form.set('consent_transcript', input.transcript)
  form.set('recording', input.recording.blob, input.recording.filename)
  return apiUpload('/v1/audio/voice_consents', form, (b) => voiceConsentSchema.parse(b), opts)
}

/** Deletes a consent; the service revokes every voice bound to it. */
export async function deleteConsent(id: string): Promise<Deletion> {
  return apiJson(`/v1/audio/voice_consents/${encodeURIComponent(id)}`, (b) => deletionSchema.parse(b), {
    method: 'DELETE',
  })
}
