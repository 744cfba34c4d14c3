import { queryOptions } from '@tanstack/react-query'
import {
  type Pronunciation,
  type PronunciationImportResult,
  type PronunciationInput,
  pronunciationImportResultSchema,
  pronunciationListSchema,
  pronunciationSchema,
} from '../../schema/index.ts'
import { apiFetch, apiJson, errorFrom } from './http.ts'

/**
 * The studio's pronunciations kept by the backend (`server/studio/pronunciations/routes.ts`, shapes in
 * `schema/pronunciations.ts`), shared by every designer of the studio: list, add, import whole, delete.
 */

export type { Pronunciation, PronunciationImportResult, PronunciationInput }

export const PRONUNCIATIONS_KEY = ['pronunciations'] as const

export const pronunciationsQuery = queryOptions({
  queryKey: PRONUNCIATIONS_KEY,
  queryFn: ({ signal }) =>
    apiJson('/pronunciations', (b) => pronunciationListSchema.parse(b).data, { signal }),
  // Another designer may have added some: opening the page asks again.
  staleTime: 0,
})

export async function addPronunciation(entry: PronunciationInput): Promise<Pronunciation> {
  return apiJson('/pronunciations', (b) => pronunciationSchema.parse(b), { method: 'POST', json: entry })
}

export async function importPronunciations(
  entries: PronunciationInput[],
): Promise<PronunciationImportResult> {
  return apiJson('/pronunciations/import', (b) => pronunciationImportResultSchema.parse(b), {
    method: 'POST',
    json: { entries },
  })
}

export async function deletePronunciation(id: string): Promise<void> {
  const response = await apiFetch(`/pronunciations/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!response.ok) throw await errorFrom(response)
}
