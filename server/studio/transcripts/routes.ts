import { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import { createParser } from 'eventsource-parser'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import parseByteRanges from 'range-parser'
import {
  alignmentRequestSchema,
  MAX_TRANSCRIPTION_FILE_BYTES,
  peaksSchema,
  type StoredResult,
  saveLabelsRequestSchema,
  storedResultSchema,
  TRANSCRIPTION_EXTENSIONS,
} from '../../../schema/index.ts'
import { readMultipart } from '../../multipart.ts'
import {
  conflict,
  forbiddenForRole,
  invalidBody,
  notFound,
  notSignedIn,
  refuse,
  upstreamUnreachable,
} from '../errors.ts'
import { upstreamAccess } from '../proxy/access.ts'
import { callUpstream, type Upstream, whileClientStays } from '../proxy/upstream.ts'
import { newTranscriptId, type TranscriptStore } from './store.ts'

/**
 * `/api/transcripts`: a reviewer's recordings and their transcripts, kept by the backend for the organization.
 *
 * - `POST /api/transcripts` (multipart, like the service's upload): the audio is kept in the database, sent
 *   to the service's `POST /v1/audio/transcriptions` with the backend's key as a streamed `verbose_json`, and the
 *   service's SSE answer is passed through to the browser as it comes. The transcript is saved when
 *   `transcript.text.done` passes by, before the browser sees it; a stream that breaks before saves nothing. The
 *   answer carries the new id in `x-transcript-id`. Errors of the service come back unchanged.
 * - `GET /api/transcripts`, `GET /api/transcripts/:id` (with labels and peaks), `GET /api/transcripts/:id/audio`
 *   (byte ranges, so the player can seek in long recordings).
 * - `PUT /api/transcripts/:id/labels`: the reviewers' edits, stored apart from the result, which never changes.
 * - `POST /api/transcripts/:id/alignments`: where corrected words were said — the recording and the words sent to the
 *   service's forced alignment (`/v1/audio/alignments`); its answer, or its error, comes back unchanged.
 * - `PUT /api/transcripts/:id/peaks`: the waveform peaks the browser computed once.
 * - `DELETE /api/transcripts/:id`.
 *
 * Whoever may transcribe (proxy/access.ts: `POST /v1/audio/transcriptions`) may use these.
 */

/** Form fields passed on to the service; the studio always asks for a streamed verbose_json. */
const FORWARDED_FIELDS = ['model', 'language', 'diarization', 'num_speakers', 'min_speakers', 'max_speakers']
/** The upload: the recording and the service's options the studio forwards. */
const TRANSCRIPT_FORM = {
  fields: FORWARDED_FIELDS,
  files: { file: MAX_TRANSCRIPTION_FILE_BYTES },
  maxFieldBytes: 1024,
}
/** Headers of the service's answer the browser gets too. */
const PASSED_HEADERS = [
  'content-type',
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit-concurrent-sessions',
  'x-ratelimit-remaining-concurrent-sessions',
]

const CONTENT_TYPES: Record<string, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  mpga: 'audio/mpeg',
  mpeg: 'audio/mpeg',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  webm: 'audio/webm',
  mp4: 'audio/mp4',
  m4a: 'audio/mp4',
}

/** The display name of an upload: its file name without directories or control characters, at most 200 characters. */
export function displayName(fileName: string | undefined): string {
  const base = (fileName ?? '').split(/[\\/]/).pop() ?? ''
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return clean.slice(0, 200) || 'Recording'
}

/** A stored file's extension: the upload's own when it is one the service decodes, else `bin`. */
export function audioExtension(fileName: string | undefined): string {
  const ext = (fileName ?? '').toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
  return ext && (TRANSCRIPTION_EXTENSIONS as readonly string[]).includes(ext) ? ext : 'bin'
}

/**
 * The one byte range to serve of a file of `size` bytes (range-parser): null for the whole file (no header, another
 * unit, several ranges, an empty file), 'invalid' when no range in it can be served (416).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'invalid' | null {
  if (!header || size === 0) return null
  // -1: no range can be served; -2: not a range header at all (the whole file, as a server may).
  const ranges = parseByteRanges(size, header, { combine: true })
  if (ranges === -1) return 'invalid'
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null
  const { start, end } = ranges[0] as { start: number; end: number }
  return { start, end }
}

export function registerTranscriptRoutes(app: FastifyInstance, store: TranscriptStore, upstream: Upstream) {
  const mayUse = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.studioUser
    if (!user) return refuse(reply, notSignedIn())
    if (upstreamAccess(user.role, 'POST', '/v1/audio/transcriptions') !== 'allowed')
      return refuse(reply, forbiddenForRole('Your role may not use transcripts.'))
  }

  app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true })
    scope.addHook('preHandler', mayUse)

    scope.get('/api/transcripts', async (_request, reply) =>
      reply.header('cache-control', 'no-store').send({ data: await store.list() }),
    )

    scope.get<{ Params: { id: string } }>('/api/transcripts/:id', async (request, reply) => {
      const record = await store.get(request.params.id)
      if (!record) return refuse(reply, notFound('No such transcript.'))
      const { audioFile: _file, ...rest } = record
      return reply
        .header('cache-control', 'no-store')
        .send({ ...rest, audio_url: `/api/transcripts/${record.id}/audio` })
    })

    scope.get<{ Params: { id: string } }>('/api/transcripts/:id/audio', async (request, reply) => {
      const record = await store.summary(request.params.id)
      if (!record) return refuse(reply, notFound('No such transcript.'))
      const size = record.audio_bytes
      const range = parseRange(request.headers.range, size)
      reply
        .header('accept-ranges', 'bytes')
        .header('content-type', record.audio_type)
        .header('cache-control', 'private, max-age=3600')
      if (range === 'invalid') return reply.code(416).header('content-range', `bytes */${size}`).send()
      if (!range)
        return reply.header('content-length', size).send(store.audioStream(record.audioFile, 0, size - 1))
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
        .header('content-length', range.end - range.start + 1)
        .send(store.audioStream(record.audioFile, range.start, range.end))
    })

    scope.put<{ Params: { id: string } }>('/api/transcripts/:id/labels', async (request, reply) => {
      const parsed = saveLabelsRequestSchema.safeParse(request.body)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        return refuse(
          reply,
          invalidBody(issue?.path.join('.') ?? null, `Invalid label edits: ${issue?.message ?? 'bad body'}`),
        )
      }
      const user = request.studioUser?.name ?? 'unknown'
      const outcome = await store.saveLabels(request.params.id, parsed.data.edits, parsed.data.revision, user)
      if (!outcome) return refuse(reply, notFound('No such transcript.'))
      if ('conflict' in outcome) {
        return refuse(
          reply,
          conflict(
            `${outcome.conflict.updated_by ?? 'Someone'} saved other label edits meanwhile. Reload to see them.`,
            'revision',
            { labels: outcome.conflict },
          ),
        )
      }
      return reply.header('cache-control', 'no-store').send(outcome.saved)
    })

    scope.put<{ Params: { id: string } }>(
      '/api/transcripts/:id/peaks',
      { bodyLimit: 8 * 1024 * 1024 },
      async (request, reply) => {
        const parsed = peaksSchema.safeParse(request.body)
        if (!parsed.success) return refuse(reply, invalidBody('data', 'Invalid peaks.'))
        if (!(await store.savePeaks(request.params.id, parsed.data)))
          return refuse(reply, notFound('No such transcript.'))
        return reply.code(204).send()
      },
    )

    scope.post<{ Params: { id: string } }>('/api/transcripts/:id/alignments', async (request, reply) => {
      const parsed = alignmentRequestSchema.safeParse(request.body)
      if (!parsed.success) {
        const issue = parsed.error.issues[0]
        return refuse(
          reply,
          invalidBody(issue?.path.join('.') ?? null, `Invalid alignment: ${issue?.message}`),
        )
      }
      const record = await store.summary(request.params.id)
      if (!record) return refuse(reply, notFound('No such transcript.'))
      const { start, end, words } = parsed.data
      const form = new FormData()
      form.append('words', JSON.stringify(words))
      form.append('start', String(start))
      form.append('end', String(end))
      form.append(
        'file',
        new Blob([await store.readAudio(record.audioFile)], { type: record.audio_type }),
        'audio',
      )
      let answer: Response
      try {
        answer = await callUpstream(upstream, '/v1/audio/alignments', {
          method: 'POST',
          body: form,
          signal: whileClientStays(reply),
        })
      } catch {
        return refuse(reply, upstreamUnreachable())
      }
      return reply
        .code(answer.status)
        .header('content-type', answer.headers.get('content-type') ?? 'application/json')
        .header('cache-control', 'no-store')
        .send(await answer.text())
    })

    scope.delete<{ Params: { id: string } }>('/api/transcripts/:id', async (request, reply) => {
      if (!(await store.delete(request.params.id))) return refuse(reply, notFound('No such transcript.'))
      return reply.code(204).send()
    })

    scope.post('/api/transcripts', async (request, reply) => upload(request, reply, store, upstream))
  })
}

async function upload(
  request: FastifyRequest,
  reply: FastifyReply,
  store: TranscriptStore,
  upstream: Upstream,
) {
  const upload = await readMultipart(request, TRANSCRIPT_FORM)
  const { fields } = upload
  const sent = upload.files.file
  if (!sent) return refuse(reply, invalidBody('file', 'Add the recording as the form field "file".'))
  if (sent.bytes.length === 0) return refuse(reply, invalidBody('file', 'The recording is empty.'))
  const id = newTranscriptId()
  const ext = audioExtension(sent.filename)
  const saved = {
    name: displayName(sent.filename),
    fileName: `${id}.${ext}`,
    type: CONTENT_TYPES[ext] ?? 'application/octet-stream',
    bytes: sent.bytes.length,
  }
  await store.writeAudio(Readable.from([sent.bytes]), saved.fileName, MAX_TRANSCRIPTION_FILE_BYTES)

  const form = new FormData()
  for (const name of FORWARDED_FIELDS) {
    const value = fields[name]
    if (value !== undefined) form.append(name, value)
  }
  form.append('response_format', 'verbose_json')
  form.append('stream', 'true')
  form.append('file', new Blob([new Uint8Array(sent.bytes)], { type: saved.type }), saved.name)

  let upstreamResponse: Response
  try {
    upstreamResponse = await callUpstream(upstream, '/v1/audio/transcriptions', {
      method: 'POST',
      body: form,
      // The browser going away stops the service's work too.
      signal: whileClientStays(reply),
    })
  } catch {
    void store.removeAudio(saved.fileName)
    return refuse(reply, upstreamUnreachable())
  }
  for (const name of PASSED_HEADERS) {
    const value = upstreamResponse.headers.get(name)
    if (value !== null) reply.header(name, value)
  }
  reply.header('cache-control', 'no-store')
  if (!upstreamResponse.ok || !upstreamResponse.body) {
    void store.removeAudio(saved.fileName)
    return reply.code(upstreamResponse.status).send(await upstreamResponse.text())
  }

  let done = false
  const keep = async (body: unknown) => {
    const result = storedResultSchema.safeParse(body)
    if (!result.success) {
      request.log.warn(
        { issues: result.error.issues.slice(0, 3) },
        'transcription result not saved: unexpected shape',
      )
      return
    }
    try {
      await store.insert({
        id,
        name: saved.name,
        source: 'upload',
        createdBy: request.studioUser?.name ?? 'unknown',
        audioFile: saved.fileName,
        audioType: saved.type,
        audioBytes: saved.bytes,
        result: result.data as StoredResult,
      })
      done = true
    } catch (err) {
      // The browser still gets the text; without a row the recording is removed when the stream ends.
      request.log.error({ err: (err as Error).message }, 'transcription result not saved')
    }
  }
  reply.header('x-transcript-id', id)

  if (!(upstreamResponse.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    // A service that answered without streaming: the whole result at once.
    const body = await upstreamResponse.json().catch(() => null)
    await keep(body)
    if (!done) void store.removeAudio(saved.fileName)
    return reply.send(body)
  }

  // The done event's result, once parsed; saved before the bytes that carry it go on.
  let finished: Record<string, unknown> | null = null
  let seen = false
  const parser = createParser({
    onEvent(event) {
      if (seen) return
      let data: { type?: unknown } | null = null
      try {
        data = JSON.parse(event.data) as { type?: unknown }
      } catch {
        return
      }
      if (data?.type !== 'transcript.text.done') return
      const { type: _type, ...result } = data
      finished = result
      seen = true
    },
  })
  const decoder = new TextDecoder()
  const settle = () => {
    if (!done) void store.removeAudio(saved.fileName)
  }
  const tee = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      // Parsed (and saved) before the bytes go on, so the transcript exists when the browser reads the done event.
      parser.feed(decoder.decode(chunk, { stream: true }))
      if (finished) {
        const result = finished
        finished = null
        await keep(result)
      }
      controller.enqueue(chunk)
    },
    flush: settle,
  })
  const stream = Readable.fromWeb(
    upstreamResponse.body.pipeThrough(tee) as import('node:stream/web').ReadableStream,
  )
  stream.on('error', settle)
  return reply.send(stream)
}
