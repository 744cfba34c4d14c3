import type { FastifyInstance } from 'fastify'
import {
  type Alignment,
  alignmentSchema,
  MAX_ALIGNMENT_SECONDS,
  MAX_ALIGNMENT_WORDS,
  MAX_TRANSCRIPTION_FILE_BYTES,
} from '../../../schema/index.ts'
import { alignmentFormSchema } from '../../../schema/service-routes.ts'
import { RECOGNITION_SAMPLE_RATE, type Recognizer } from '../../engine/recognition/index.ts'
import { readMultipart } from '../../multipart.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { ApiError, badRequest } from '../errors.ts'
import { requestLease } from '../limits/lease.ts'
import type { SlotPool } from '../limits/slots.ts'
import { detail, envelope, json, keyRefusals } from '../route-docs.ts'
import { sessionRateLimited, sessionsBusy } from './realtime/call-routes.ts'
import { prepareUpload } from './upload-work.ts'

export interface AlignmentRouteDeps {
  keys: KeyStore
  recognizer: Recognizer
  asrSlots: SlotPool
}

/** The longest word we take: far past any real one, short enough that 400 of them stay a small form. */
const MAX_WORD_CHARS = 100

const alignSchema = {
  operationId: 'createAlignment',
  summary: 'Where in a span of a recording each given word was said (forced alignment; an extension)',
  tags: ['transcription'],
  body: { content: { 'multipart/form-data': { schema: alignmentFormSchema } } },
  response: {
    200: json(alignmentSchema, 'One span per word, in seconds from the start of the file.'),
    400: detail('words, start, end or file invalid, or the audio could not be decoded.'),
    ...keyRefusals('audio:transcribe'),
    413: detail('file larger than 25 MiB.'),
    415: detail('Not multipart/form-data.'),
    422: envelope(
      '`alignment_failed`: the span cannot be made to hold the words (other words, or none, were said).',
    ),
    429: sessionsBusy,
    501: envelope('`alignment_unavailable`: this recognizer cannot align.'),
    503: envelope('`recognition_unavailable`.'),
  },
}

const spanTooLong = () => badRequest(`A span is at most ${MAX_ALIGNMENT_SECONDS} s: send end.`, 'end')

function parseWords(raw: string | undefined): string[] {
  const refusal = badRequest(
    `words must be a JSON array of 1 to ${MAX_ALIGNMENT_WORDS} strings of at most ${MAX_WORD_CHARS} characters.`,
    'words',
  )
  if (raw === undefined) throw refusal
  let words: unknown
  try {
    words = JSON.parse(raw)
  } catch {
    throw refusal
  }
  const valid = (list: unknown): list is string[] =>
    Array.isArray(list) &&
    list.length >= 1 &&
    list.length <= MAX_ALIGNMENT_WORDS &&
    list.every((w) => typeof w === 'string' && w.length <= MAX_WORD_CHARS)
  if (!valid(words)) throw refusal
  return words
}

function parseSeconds(raw: string | undefined, name: 'start' | 'end'): number | undefined {
  if (raw === undefined) return undefined
  const value = raw.trim() === '' ? Number.NaN : Number(raw)
  if (!Number.isFinite(value) || value < 0)
    throw badRequest(`${name} must be a number of seconds, 0 or more.`, name)
  return value
}

/**
 * `POST /v1/audio/alignments`: the words of one span aligned by the recognizer's grammar decoding. It takes one of the
 * organization's ASR slots like an upload (held until the answer or the client's leaving) and runs in this process:
 * a span is at most two minutes, so it needs no queue.
 */
export function alignmentRoutes(app: FastifyInstance, deps: AlignmentRouteDeps) {
  app.post('/v1/audio/alignments', { schema: alignSchema }, async (request, reply): Promise<Alignment> => {
    const lease = requestLease(reply)
    const principal = await authenticate(deps.keys, request, 'audio:transcribe')
    const form = await readMultipart(request, {
      fields: ['words', 'start', 'end'],
      files: { file: MAX_TRANSCRIPTION_FILE_BYTES },
    })
    const words = parseWords(form.fields.words)
    const start = parseSeconds(form.fields.start, 'start') ?? 0
    const end = parseSeconds(form.fields.end, 'end')
    if (end !== undefined && end <= start) throw badRequest('end must be after start.', 'end')
    if (end !== undefined && end - start > MAX_ALIGNMENT_SECONDS) throw spanTooLong()
    const file = form.files.file?.bytes
    if (!file) throw badRequest('The form needs the recording in the field file.', 'file')
    const align = deps.recognizer.align?.bind(deps.recognizer)
    if (!align) {
      throw new ApiError(
        501,
        'envelope',
        'This recognizer cannot align words.',
        'alignment_unavailable',
        null,
        'server_error',
      )
    }

    const acquired = await deps.asrSlots.acquire(principal.ownerId, 0)
    if (!('slot' in acquired)) throw sessionRateLimited(deps.asrSlots.limit)
    lease.hold(acquired.slot)
    lease.signal.throwIfAborted()
    const audio = await prepareUpload({ recognizer: deps.recognizer, diarizer: null }, file)
    const duration = audio.length / RECOGNITION_SAMPLE_RATE
    if (start >= duration)
      throw badRequest(`start is past the recording's end (${duration.toFixed(2)} s).`, 'start')
    const last = Math.min(end ?? duration, duration)
    if (last - start > MAX_ALIGNMENT_SECONDS) throw spanTooLong()
    const span = audio.subarray(
      Math.floor(start * RECOGNITION_SAMPLE_RATE),
      Math.ceil(last * RECOGNITION_SAMPLE_RATE),
    )
    const spans = await align(span, words, { signal: lease.signal })
    if (!spans) {
      throw new ApiError(
        422,
        'envelope',
        'These words could not be found in this span of the recording.',
        'alignment_failed',
        'words',
      )
    }
    const at = (s: number) => Math.round((start + s) * 1000) / 1000
    return {
      object: 'audio.alignment',
      words: words.map((word, i) => ({ word, start: at(spans[i]?.start ?? 0), end: at(spans[i]?.end ?? 0) })),
    }
  })
}
