import { queryOptions } from '@tanstack/react-query'
import { createParser } from 'eventsource-parser'
import { z } from 'zod'
import {
  type Alignment,
  type AlignmentRequest,
  alignmentSchema,
  type LabelEdits,
  type Peaks,
  type SavedLabels,
  type SavedTranscript,
  type StoredResult,
  savedLabelsSchema,
  savedTranscriptSchema,
  storedResultSchema,
  type TranscriptSummary,
  transcriptListSchema,
} from '../../schema/index.ts'
import { apiFetch, apiJson, apiUploadStream, errorFrom, putRevision, type UploadProgress } from './http.ts'

/**
 * Saved transcripts kept by the studio backend (`server/studio/transcripts/routes.ts`, shapes in `schema/transcripts.ts`):
 * transcribing and saving an upload (the service's events passed through: contract 4.12, 6.4), the list, one with its
 * result, label edits on top of a revision, forced alignment of corrected words, waveform peaks, deletion.
 */

export type { LabelEdits, Peaks, SavedLabels, SavedTranscript, StoredResult, TranscriptSummary }

/** The transcription stream ended before `transcript.text.done`: nothing was saved. */
export class TranscriptionIncompleteError extends Error {
  constructor(message = 'The transcription stopped before it was complete; nothing was saved. Try again.') {
    super(message)
  }
}

/** Someone saved other label edits since these were loaded (409); `labels` are the ones now saved. */
export class LabelsConflictError extends Error {
  constructor(
    message: string,
    readonly labels: SavedLabels,
  ) {
    super(message)
  }
}

/** A transcription event (upload stream and live socket alike), read by its `type` with the rest left as sent. */
export const transcriptionEventSchema = z.looseObject({ type: z.string() })

/**
 * Sends a recording to the backend, which stores it, has the service transcribe it (streamed verbose_json) and
 * saves the result. `fields` are the service's form fields (diarization options). Text deltas go to `onDelta` as the
 * service produces them; resolves with the saved transcript's id and the service's result.
 */
export async function transcribeAndSave(
  upload: { file: Blob; fileName: string; fields: Record<string, string> },
  opts: {
    onProgress?: (progress: UploadProgress) => void
    onDelta?: (delta: string) => void
    signal?: AbortSignal
  } = {},
): Promise<{ id: string; result: StoredResult }> {
  const form = new FormData()
  // Fields before the file, as the service reads them.
  for (const [name, value] of Object.entries(upload.fields)) form.set(name, value)
  form.set('file', upload.file, upload.fileName)
  let result: StoredResult | null = null
  let failure: Error | null = null
  const parser = createParser({
    onEvent(message) {
      const event = transcriptionEventSchema.parse(JSON.parse(message.data))
      if (event.type === 'transcript.text.delta') opts.onDelta?.(String(event.delta ?? ''))
      else if (event.type === 'transcript.text.done') {
        const { type: _type, ...rest } = event
        result = storedResultSchema.parse(rest)
      } else if (event.type === 'error') {
        const error = (event.error ?? {}) as { message?: unknown }
        failure = new TranscriptionIncompleteError(
          typeof error.message === 'string' ? error.message : 'The service stopped with an error.',
        )
      }
    },
  })
  const headers = await apiUploadStream('/transcripts', form, {
    onProgress: opts.onProgress,
    onText: (chunk) => parser.feed(chunk),
    signal: opts.signal,
  })
  const id = headers.get('x-transcript-id')
  if (failure) throw failure
  if (!result || !id) throw new TranscriptionIncompleteError()
  return { id, result }
}

async function listTranscripts(signal?: AbortSignal): Promise<TranscriptSummary[]> {
  return apiJson('/transcripts', (b) => transcriptListSchema.parse(b).data, { signal })
}

/** The organization's saved transcripts, newest first; an upload or a live session invalidates it once saved. */
export const transcriptListQuery = queryOptions({
  queryKey: ['transcripts'] as const,
  queryFn: ({ signal }) => listTranscripts(signal),
  staleTime: 10_000,
})

export async function getTranscript(id: string, signal?: AbortSignal): Promise<SavedTranscript> {
  return apiJson(`/transcripts/${encodeURIComponent(id)}`, (b) => savedTranscriptSchema.parse(b), { signal })
}

/** Saves the edits made on top of `revision`; rejects with LabelsConflictError when someone saved in between. */
export async function saveTranscriptLabels(
  id: string,
  edits: LabelEdits,
  revision: number,
): Promise<SavedLabels> {
  return putRevision(
    `/transcripts/${encodeURIComponent(id)}/labels`,
    { edits, revision },
    (b) => savedLabelsSchema.parse(b),
    (b) => {
      const body = z.object({ error: z.object({ message: z.string() }), labels: savedLabelsSchema }).parse(b)
      return new LabelsConflictError(body.error.message, body.labels)
    },
  )
}

/**
 * Where `words` were said between `start` and `end` of the transcript's recording (the service's forced alignment);
 * rejects with ApiRequestError when it cannot tell (422), or the service cannot align at all (404, 501).
 */
export async function alignTranscriptWords(
  id: string,
  request: AlignmentRequest,
  signal?: AbortSignal,
): Promise<Alignment> {
  return apiJson(`/transcripts/${encodeURIComponent(id)}/alignments`, (b) => alignmentSchema.parse(b), {
    method: 'POST',
    json: request,
    signal,
  })
}

export async function saveTranscriptPeaks(id: string, peaks: Peaks): Promise<void> {
  const response = await apiFetch(`/transcripts/${encodeURIComponent(id)}/peaks`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(peaks),
  })
  if (!response.ok) throw await errorFrom(response)
}

export async function deleteTranscript(id: string): Promise<void> {
  const response = await apiFetch(`/transcripts/${encodeURIComponent(id)}`, { method: 'DELETE' })
  if (!response.ok) throw await errorFrom(response)
}
