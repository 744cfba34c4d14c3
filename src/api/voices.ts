import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  type CatalogVoice,
  type Deletion,
  deletionSchema,
  type ModelId,
  type SavedVoice,
  savedVoiceSchema,
  voiceListSchema,
} from '../../schema/index.ts'
import { type AudioUpload, apiJson, apiUpload, type UploadOptions } from './http.ts'

/**
 * The voice catalog (contract 4.9) and the caller's saved voices (2.5, 4.7–4.8): a model's voices for the pickers, the
 * saved ones with their consents for the voices page, creating a voice from a sample and deleting one.
 */

export type { CatalogVoice, SavedVoice }

/**
 * The root of every voice catalog query's key (this file's queries, so the voices page's list and every voice
 * picker): invalidating it refreshes them all after a voice is created or deleted or a consent revoked.
 */
export const VOICES_KEY = ['voices'] as const

/** The model whose catalog lists the saved voices (custom voices exist only on the second generation). */
export const SAVED_VOICE_MODEL: ModelId = 'svc-tts-2-latest'

async function listVoices(model: ModelId, signal?: AbortSignal): Promise<CatalogVoice[]> {
  const body = await apiJson(
    `/v1/voices?model=${encodeURIComponent(model)}`,
    (b) => voiceListSchema.parse(b),
    {
      signal,
    },
  )
  return body.data
}

/** A model's catalog: its built-in voices and the organization's saved ones. */
export const voiceCatalogQuery = (model: ModelId) =>
  queryOptions({
    queryKey: [...VOICES_KEY, model] as const,
    queryFn: ({ signal }) => listVoices(model, signal),
  })

const savedCatalogEntrySchema = z.object({
  id: z.string(),
  type: z.literal('saved'),
  name: z.string(),
  language: z.string().catch('en'),
  description: z.string().catch(''),
  consent: z
    .string()
    .nullish()
    .transform((c) => c ?? null),
  created_at: z
    .number()
    .nullish()
    .transform((t) => t ?? null),
})
export type SavedCatalogVoice = z.infer<typeof savedCatalogEntrySchema>

/** The caller's active saved voices from the voice catalog (4.9), each with the consent it is bound to. */
async function listSavedVoices(signal?: AbortSignal): Promise<SavedCatalogVoice[]> {
  const body = await apiJson(
    `/v1/voices?model=${encodeURIComponent(SAVED_VOICE_MODEL)}`,
    (b) => z.object({ data: z.array(z.looseObject({ type: z.string() })) }).parse(b),
    { signal },
  )
  return body.data.filter((v) => v.type === 'saved').map((v) => savedCatalogEntrySchema.parse(v))
}

export const savedVoicesQuery = queryOptions({
  queryKey: [...VOICES_KEY, 'saved'] as const,
  queryFn: ({ signal }) => listSavedVoices(signal),
})

/** Saves a voice from a sample, bound to `consent` or (without one) in the extension form. */
export async function createVoice(
  input: { name: string; sample: AudioUpload; consent?: string | null; transcript?: string },
  opts: UploadOptions = {},
): Promise<SavedVoice> {
  const form = new FormData()
  form.set('name', input.name)
  if (input.consent) form.set('consent', input.consent)
  if (input.transcript) form.set('reference_transcript', input.transcript)
  form.set('audio_sample', input.sample.blob, input.sample.filename)
  return apiUpload('/v1/audio/voices', form, (b) => savedVoiceSchema.parse(b), opts)
}

export async function deleteVoice(id: string): Promise<Deletion> {
  return apiJson(`/v1/audio/voices/${encodeURIComponent(id)}`, (b) => deletionSchema.parse(b), {
    method: 'DELETE',
  })
}
