import { queryOptions } from '@tanstack/react-query'
import {
  type ErasableTakes,
  erasableTakesSchema,
  type NewTake,
  type StoredTake,
  storedTakeSchema,
  type TakeCreated,
  type TakeUpdate,
  takeCreatedSchema,
  takeListSchema,
} from '../../schema/index.ts'
import { wavFormat } from '../audio/peaks.ts'
import { apiFetch, apiJson, errorFrom } from './http.ts'

/**
 * The take history kept by the studio backend (`server/studio/takes/routes.ts`, shapes in `schema/takes.ts`): a script's
 * takes with their settings and timings, each one's audio, and the changes a designer makes to them.
 */

export type { StoredTake, TakeCreated }

/** A script's stored takes, oldest first: the query key and its fetcher together. */
export const scriptTakesQuery = (scriptId: string) =>
  queryOptions({
    queryKey: ['takes', scriptId] as const,
    queryFn: ({ signal }) =>
      apiJson(`/scripts/${encodeURIComponent(scriptId)}/takes`, (b) => takeListSchema.parse(b).data, {
        signal,
      }),
    // Another browser of the same designer may have added takes: opening the script again asks again.
    staleTime: 0,
  })

/** What a revocation would erase: one voice, or one consent with every voice bound to it. */
export type ErasureTarget = { voice: string } | { consent: string }

/**
 * How many kept takes, of how many designers, deleting the voice or revoking the consent would erase (consent
 * administrators; `GET /api/takes/erasable`). Asked afresh each time a confirmation opens.
 */
export const erasableTakesQuery = (target: ErasureTarget) =>
  queryOptions({
    queryKey: ['takes', 'erasable', target] as const,
    queryFn: ({ signal }): Promise<ErasableTakes> => {
      const query = 'voice' in target ? `voice=${target.voice}` : `consent=${target.consent}`
      return apiJson(`/takes/erasable?${encodeURI(query)}`, (b) => erasableTakesSchema.parse(b), { signal })
    },
    staleTime: 0,
    gcTime: 0,
  })

/** One take's audio as the page holds it: 24 kHz mono PCM16 (the backend serves it as a WAV file). */
export async function fetchTakeAudio(id: string, signal?: AbortSignal): Promise<Int16Array> {
  const response = await apiFetch(`/takes/${encodeURIComponent(id)}/audio`, { signal })
  if (!response.ok) throw await errorFrom(response)
  return pcmOfWav(new Uint8Array(await response.arrayBuffer()))
}

/** The samples of a WAV file of PCM16 (its `data` chunk, found by the one WAV reader, core/wav.ts, through peaks.ts). */
export function pcmOfWav(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const wav = wavFormat(view)
  if (wav?.format !== 1 || wav.bitsPerSample !== 16) throw new Error('The take’s audio is not PCM16 WAV.')
  // A copy, aligned for Int16Array whatever the chunk's offset.
  const out = new Int16Array(Math.floor(wav.dataBytes / 2))
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(wav.dataOffset + i * 2, true)
  return out
}

/**
 * Stores a finished take with its audio (raw PCM16, little-endian as the page holds it); the answer names the takes
 * the backend dropped to stay within the caps.
 */
export async function uploadTake(
  scriptId: string,
  take: NewTake,
  pcm: Int16Array,
  signal?: AbortSignal,
): Promise<TakeCreated> {
  const form = new FormData()
  form.append('take', JSON.stringify(take))
  // The page's samples are in the platform's order, little-endian on every platform a browser runs on.
  const bytes = new Uint8Array(pcm.buffer as ArrayBuffer, pcm.byteOffset, pcm.byteLength)
  form.append('audio', new Blob([bytes], { type: 'audio/pcm' }), 'take.pcm')
  return apiJson(`/scripts/${encodeURIComponent(scriptId)}/takes`, (b) => takeCreatedSchema.parse(b), {
    method: 'POST',
    body: form,
    ...(signal ? { signal } : {}),
  })
}

/** Renames (null clears the name) and/or stars a take; starring un-stars the line's other take. */
export async function updateTake(id: string, change: TakeUpdate): Promise<StoredTake> {
  return apiJson(`/takes/${encodeURIComponent(id)}`, (b) => storedTakeSchema.parse(b), {
    method: 'PATCH',
    json: change,
  })
}

export async function deleteTake(id: string): Promise<void> {
  const response = await apiFetch(`/takes/${encodeURIComponent(id)}`, { method: 'DELETE' })
  // Gone already (deleted in another browser, or dropped by the cap) is what was asked for.
  if (!response.ok && response.status !== 404) throw await errorFrom(response)
}
