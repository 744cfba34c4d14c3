import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import {
  MAX_TRANSCRIPTION_FILE_BYTES,
  type TranscriptionSseEvent,
  transcriptionJsonSchema,
  transcriptionVerboseJsonSchema,
} from '../../../schema/index.ts'
import { transcriptionUploadSchema } from '../../../schema/service-routes.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { ApiError, badRequest } from '../errors.ts'
import { requestLease } from '../limits/lease.ts'
import type { SlotPool } from '../limits/slots.ts'
import { discardRest } from '../multipart-form.ts'
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

/** Text fields are short; the form has one file and at most this many text fields. */
const MAX_FIELDS = 32
const MAX_FIELD_BYTES = 64 * 1024

const fileTooLarge = () =>
  new ApiError(
    413,
    'detail',
    `The file is larger than ${MAX_TRANSCRIPTION_FILE_BYTES} bytes (25 MiB).`,
    null,
    'file',
  )

/** The upload's fields and its one file, with the size limits enforced while it streams in. */
async function readUpload(
  request: FastifyRequest,
): Promise<{ fields: Array<[string, string]>; file: Buffer }> {
  if (!request.isMultipart()) {
    throw new ApiError(415, 'detail', 'Send the upload as multipart/form-data with a file field.')
  }
  const fields: Array<[string, string]> = []
  let file: Buffer | undefined
  try {
    for await (const part of request.parts({
      limits: {
        fileSize: MAX_TRANSCRIPTION_FILE_BYTES,
        files: 1,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES,
      },
    })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          throw badRequest(
            `Unexpected file field ${JSON.stringify(part.fieldname)}; send the audio as file.`,
            part.fieldname,
          )
        }
        file = await part.toBuffer()
      } else {
        if (part.valueTruncated) throw badRequest(`The field ${part.fieldname} is too long.`, part.fieldname)
        fields.push([part.fieldname, String(part.value)])
      }
    }
  } catch (err) {
    // A refused upload is read to its end and dropped, or the keep-alive connection stalls (multipart-form.ts).
    discardRest(request)
    if (err instanceof ApiError) throw err
    const code = (err as { code?: string }).code
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw fileTooLarge()
    if (code === 'FST_FILES_LIMIT') throw badRequest('Send exactly one file, in the field file.', 'file')
    if (code === 'FST_FIELDS_LIMIT') throw badRequest('Too many form fields.')
    if (code === 'FST_PARTS_LIMIT') throw badRequest('Too many form parts.')
    throw badRequest(`The multipart body could not be read: ${(err as Error).message}`)
  }
  if (!file) throw badRequest('The form needs an audio file in the field file.', 'file')
  return { fields, file }
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
