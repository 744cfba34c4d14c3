import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import {
  type SavedScript,
  type ScriptDocument,
  type ScriptSummary,
  savedScriptSchema,
  scriptListSchema,
} from '../../schema/index.ts'
import { apiFetch, apiJson, errorFrom, putRevision } from './http.ts'

/**
 * A designer's scripts kept by the studio backend (`server/studio/scripts/routes.ts`, shapes in `schema/scripts.ts`): list,
 * open, create, save on top of a revision, delete.
 */

export type { SavedScript, ScriptDocument, ScriptSummary }

/** Another browser or tab saved the script since this revision (409); `script` is the one now saved. */
export class ScriptConflictError extends Error {
  constructor(
    message: string,
    readonly script: SavedScript,
  ) {
    super(message)
  }
}

/** The signed-in designer's scripts, most recently saved first. */
export async function listScripts(signal?: AbortSignal): Promise<ScriptSummary[]> {
  return apiJson('/scripts', (b) => scriptListSchema.parse(b).data, { signal })
}

/**
 * The script list beside the open script. The open script is part of the key, so the list is asked again when the
 * page opens another script or saves a new one for the first time (its title then joins the list).
 */
export const scriptListQuery = (open: { id: string | null; saved: boolean }) =>
  queryOptions({
    queryKey: ['scripts', open.id, open.saved] as const,
    queryFn: ({ signal }) => listScripts(signal),
  })

export async function getScript(id: string, signal?: AbortSignal): Promise<SavedScript> {
  return apiJson(`/scripts/${encodeURIComponent(id)}`, (b) => savedScriptSchema.parse(b), { signal })
}

export async function createScript(script: ScriptDocument): Promise<SavedScript> {
  return apiJson('/scripts', (b) => savedScriptSchema.parse(b), { method: 'POST', json: script })
}

/** Saves the script edited from `revision`; rejects with ScriptConflictError when it was saved elsewhere meanwhile. */
export async function saveScript(id: string, script: ScriptDocument, revision: number): Promise<SavedScript> {
  return putRevision(
    `/scripts/${encodeURIComponent(id)}`,
    { script, revision },
    (b) => savedScriptSchema.parse(b),
    (b) => {
      const body = z.object({ error: z.object({ message: z.string() }), script: savedScriptSchema }).parse(b)
      return new ScriptConflictError(body.error.message, body.script)
    },
  )
}

export async function deleteScript(id: string): Promise<void> {
  const response = await apiFetch(`/scripts/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!response.ok) throw await errorFrom(response)
}
