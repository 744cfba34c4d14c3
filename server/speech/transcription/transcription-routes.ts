import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import {
  MAX_TRANSCRIPTION_FILE_BYTES,
  type TranscriptionSseEvent,
  transcriptionJsonSchema,
  transcriptionVerboseJsonSchema,
} from '../../../schema/index.ts'
import { transcriptionUploadSchema } from '../../../schema/service-routes.ts'
import { readMultipart } from '../../multipart.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { badRequest } from '../errors.ts'
import { requestLease } from '../limits/lease.ts'
import type { SlotPool } from '../limits/slots.ts'
import { detail, either, envelope, keyRefusals } from '../route-docs.ts'
import { sseFrame } from '../sse.ts'
import type { TranscriptionJobs } from './jobs.ts'
import { resolveTranscriptionOptions, type TranscriptionOptions } from './options.ts'
import { sessionRateLimited, sessionsBusy } from './realtime/call-routes.ts'
import { renderTranscript, toJson, toVerboseJson } from './transcript-formats.ts'

export interface TranscriptionRouteDeps {
  keys: KeyStore
  /** Whether uploads may ask for diarization (switched on, and a diarizer to run it). */
  diarizationEnabled: boolean
  asrSlots: SlotPool
  /** Where the work runs: in this process, or on any instance through the shared queue (jobs.ts). */
  jobs: TranscriptionJobs
}

/**
 * The upload's fields (in order, repeats included: their names and order are checked by options.ts, as the contract
 * lists them) and its one file, with the size limits enforced while it streams in.
 */
async function readUpload(
  request: FastifyRequest,
): Promise<{ fields: Array<[string, string]>; file: Buffer }> {
  const form = await readMultipart(request, {
    fields: 'any',
    files: { file: MAX_TRANSCRIPTION_FILE_BYTES },
  })
  const file = form.files.file?.bytes
  if (!file) throw badRequest('The form needs an audio file in the field file.', 'file')
  return { fields: form.entries, file }
}

const uploadSchema = {
  operationId: 'createTranscription',
  summary: 'Transcribe an audio file, optionally with speaker attribution',
  tags: ['transcription'],
  body: { content: { 'multipart/form-data': { schema: transcriptionUploadSchema } } },
  response: {
    200: {
      description:
        'json / verbose_json bodies, text / srt / vtt as text, or (stream=true) SSE `data:` lines of TranscriptionSseEvent.',
      content: {
        'application/json': { schema: z.union([transcriptionJsonSchema, transcriptionVerboseJsonSchema]) },
        'text/plain': { schema: z.string() },
        'application/x-subrip': { schema: z.string() },
        'text/vtt': { schema: z.string() },
        'text/event-stream': { schema: z.string() },
      },
    },
    400: either(
      '`invalid_diarization_options`, `invalid_response_format` or `invalid_request_error` (model) in the envelope; other fields and undecodable audio in `detail`.',
    ),
    ...keyRefusals('audio:transcribe'),
    413: detail('file larger than 25 MiB.'),
    415: detail('Not multipart/form-data.'),
    429: sessionsBusy,
    501: envelope('`diarization_not_enabled`: diarization is switched off in this deployment.'),
    503: envelope('`recognition_unavailable`.'),
  },
}

/**
 * `POST /v1/audio/transcriptions` (contract 4.11, 4.12, 7, 8; docs/transcription.md). Validation comes first; admission
 * then takes one of the organization's 5 ASR slots, held until the response succeeds or fails, or the client leaves.
 */
export function transcriptionRoutes(app: FastifyInstance, deps: TranscriptionRouteDeps) {
  app.post('/v1/audio/transcriptions', { schema: uploadSchema }, async (request, reply) => {
    // Taken before any await: the slot goes back when the response closes — done, failed or cut by the client —
    // even if the client left while the upload was still being read (lease.ts).
    const lease = requestLease(reply)
    const principal = await authenticate(deps.keys, request, 'audio:transcribe')
    const { fields, file } = await readUpload(request)
    const options = resolveTranscriptionOptions(fields, { diarizationEnabled: deps.diarizationEnabled })

    const acquired = await deps.asrSlots.acquire(principal.ownerId, 0)
    if (!('slot' in acquired)) throw sessionRateLimited(deps.asrSlots.limit)
    lease.hold(acquired.slot)
    // The client going away stops decoding and recognition (the lease's signal), wherever they run, and gives the
    // slot back.
    lease.signal.throwIfAborted()
    return serve(request, reply, deps, principal.ownerId, options, file, lease.signal)
  })
}

async function serve(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: TranscriptionRouteDeps,
  ownerId: string,
  options: TranscriptionOptions,
  file: Buffer,
  signal: AbortSignal,
) {
  // Resolves once the audio is decoded: a file that cannot be read is still a 400 before any response starts.
  const job = await deps.jobs.start({ ownerId, file, options }, signal, request.log)
  signal.throwIfAborted()

  if (!options.stream) {
    const parts = await job.result()
    const { contentType, body } = renderTranscript(options.responseFormat, parts)
    return reply.header('cache-control', 'no-store').type(contentType).send(body)
  }

  reply.hijack()
  const raw = reply.raw
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-request-id': String(request.id),
  })
  const send = (event: TranscriptionSseEvent) => {
    if (!raw.destroyed) raw.write(sseFrame<TranscriptionSseEvent>(event))
  }
  try {
    const parts = await job.result((delta) => send({ type: 'transcript.text.delta', delta }))
    const result = options.responseFormat === 'verbose_json' ? toVerboseJson(parts) : toJson(parts)
    send({ type: 'transcript.text.done', ...result })
  } catch (err) {
    if (!signal.aborted) {
      request.log.error({ err }, 'transcription failed')
      send({
        type: 'error',
        error: {
          type: 'server_error',
          code: 'transcription_failed',
          message: (err as Error).message,
          param: null,
        },
      })
    }
  } finally {
    raw.end()
  }
}
