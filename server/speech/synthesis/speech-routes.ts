import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { concat } from '../../../core/concat.ts'
import {
  CONTENT_TYPES,
  DECODING_FIELDS,
  isSecondGen,
  MAX_REFERENCE_BYTES,
  MAX_SPEECH_BODY_BYTES,
  SAMPLE_RATE,
  SECOND_GEN_MODEL,
  type SpeechSseEvent,
  speechRequestSchema,
  type Usage,
} from '../../../schema/index.ts'
import { cloningFormSchema, continuationParamsSchema } from '../../../schema/service-routes.ts'
import { encodeWhole, holdWarmEncoders } from '../../engine/codecs/encode.ts'
import { AUDIO_TOKENS_PER_SECOND, normalizeLoudness, type Synthesizer, speak } from '../../engine/index.ts'
import { readMultipart } from '../../multipart.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import {
  ApiError,
  badRequest,
  durableKeyRequired,
  invalidField,
  noGenerationSlot,
  rateLimited,
} from '../errors.ts'
import { type RequestLease, requestLease } from '../limits/lease.ts'
import type { Slot, SlotPool } from '../limits/slots.ts'
import { detail, either, envelope, keyRefusals, noBody, retryAfter, speechAudio } from '../route-docs.ts'
import { sseFrame } from '../sse.ts'
import { type SpeakingVoice, speakingVoice } from '../voices/speaking-voice.ts'
import type { VoiceService } from '../voices/voice-service.ts'
import { audioDeltaFrames, encodeStream, pcmBytes, wavHeader } from './audio-out.ts'
import type { ContinuationStore } from './continuation-store.ts'
import { type ResolvedSpeechRequest, resolveSpeechRequest, speakRequestFor } from './speech-request.ts'
import { asksForSilence, nothingToSpeak, untilSound } from './unspoken.ts'

export interface SpeechRouteDeps {
  keys: KeyStore
  synthesizer: Synthesizer
  voices: VoiceService
  ttsSlots: SlotPool
  /** How long a second-generation request waits in line for a slot before 503 (contract 8: about 8 s). */
  slotWaitMs: number
  /** At capacity, answer 303 with a continuation URL instead of waiting or refusing (4.1). */
  redirectWhenBusy: boolean
  /** Where 303 continuations are kept, for any instance to redeem. */
  continuations: ContinuationStore
  /** How long a continuation waits for a slot before 503. */
  continuationWaitMs: number
  /** Request duration limit (contract 8: 30 minutes); a stream cut by it ends without its completion marker. */
  requestMs: number
}

function usageFor(req: ResolvedSpeechRequest, samples: number): Usage {
  const audioSeconds = samples / SAMPLE_RATE
  // Token counts are always 0 for the second generation (6.1); for 0.8 they are estimates, see docs/api.md.
  const input = isSecondGen(req.model) ? 0 : Math.ceil(req.input.length / 4)
  const output = isSecondGen(req.model) ? 0 : Math.round(audioSeconds * AUDIO_TOKENS_PER_SECOND)
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    audio_seconds: Math.round(audioSeconds * 1000) / 1000,
    input_characters: req.input.length,
  }
}

/** Continuations of redirected requests (4.1): single use, bound to their owner, short-lived. */
const CONTINUATION_TTL_MS = 60_000

const busy = {
  429: {
    ...envelope(
      '`rate_limit_exceeded`: 2 concurrent generations per organization (Retry-After: 1); `custom_voice_creation_busy`: the cloning queue is full (Retry-After: 5).',
    ),
    headers: retryAfter,
  },
  503: {
    ...envelope(
      'No generation slot within about 8 s (`service_unavailable`, Retry-After: 1), or a saved voice still being prepared again (`voice_preparing`, Retry-After: 5).',
    ),
    headers: retryAfter,
  },
}

const speechSchema = {
  operationId: 'createSpeech',
  summary: 'Generate speech, streamed while it is produced',
  tags: ['synthesis'],
  bodyDescription: `JSON body of at most ${MAX_SPEECH_BODY_BYTES} bytes.`,
  body: {
    content: {
      'application/json': { schema: speechRequestSchema },
      'multipart/form-data': { schema: cloningFormSchema },
    },
  },
  response: {
    200: speechAudio(
      'Audio in the requested format (binary, `stream_format: audio`) or SSE events (`stream_format: sse`). Headers: x-request-id, X-Model, X-Stream-Format.',
    ),
    303: noBody(
      'Redirect mode (`SPEECH_REDIRECT_WHEN_BUSY=1`) at capacity: the audio is at `Location` once a slot frees; empty body.',
      { location: { description: 'The continuation, /v1/audio/speech/continuations/{token}.' } },
    ),
    400: either(
      'Invalid field: the envelope (decoding values, model, voice) or `detail` (other fields, and an `input` with nothing that can be spoken).',
    ),
    ...keyRefusals('tts:generate', ', or `durable_api_key_required` for a saved voice with an ek_ key'),
    404: envelope('`voice_not_found`.'),
    413: detail('Body over 256 KiB, or reference_audio over 10 MiB.'),
    415: detail('Content type other than JSON or multipart.'),
    422: envelope("`speaker_verification_failed`: the reference's speaker does not match the consent."),
    ...busy,
  },
}

const continuationSchema = {
  operationId: 'redeemSpeechContinuation',
  summary: 'The audio of a request redirected at capacity (303), once; waits up to 30 s for a slot',
  tags: ['synthesis'],
  params: continuationParamsSchema,
  response: {
    200: speechAudio('As for POST /v1/audio/speech.'),
    ...keyRefusals('tts:generate'),
    404: either(
      'The continuation does not exist, was used already, has expired or is another organization’s (`detail`); `voice_not_found`.',
    ),
    ...busy,
  },
}

export function speechRoutes(app: FastifyInstance, deps: SpeechRouteDeps) {
  const { keys, synthesizer, ttsSlots, continuations } = deps
  // Each compressed format's encoder is started before a request needs it, and one is kept ready after each use.
  const releaseEncoders = holdWarmEncoders()
  app.addHook('onClose', async () => {
    releaseEncoders()
  })

  app.post(
    '/v1/audio/speech',
    { bodyLimit: MAX_SPEECH_BODY_BYTES, schema: speechSchema },
    async (request, reply) => {
      // Taken before any await, so the slots this request comes to hold go back however and whenever it ends.
      const lease = requestLease(reply)
      const principal = await authenticate(keys, request, 'tts:generate')
      const { req, reference } = request.isMultipart()
        ? await readCloningForm(request)
        : { req: resolveSpeechRequest(request.body), reference: undefined }
      let voice: VoiceSource
      if (req.voice.kind === 'inline') {
        const clone = {
          audio: reference ?? inlineReferenceBytes(req.voice.reference),
          transcript: req.voice.transcript,
          consentId: req.voice.consent,
        }
        voice = { prepare: (signal) => deps.voices.prepareReference(principal.ownerId, clone, signal) }
      } else {
        // As on the text-input WebSocket (contract 5.4): a saved voice is a persistent biometric resource, not for an
        // ephemeral credential. Refused before the lookup, so the answer says nothing about the id.
        if (req.voice.kind === 'saved' && principal.kind === 'ephemeral') {
          throw durableKeyRequired('A custom voice', 'voice')
        }
        voice = await speakingVoice(deps.voices, principal.ownerId, req.voice)
      }

      // A one-request clone carries its reference audio in the request; it waits in line like any request instead of
      // being kept as a continuation (docs/api.md).
      if (deps.redirectWhenBusy && !('prepare' in voice) && !(await ttsSlots.available(principal.ownerId))) {
        // At capacity, hand out a continuation URL instead of waiting or refusing; the body stays empty (4.1).
        const token = await continuations.issue(principal.ownerId, request.body, CONTINUATION_TTL_MS)
        return reply
          .code(303)
          .headers({ location: `/v1/audio/speech/continuations/${token}`, 'cache-control': 'no-store' })
          .send()
      }
      return serve(reply, lease, principal.ownerId, req, voice, isSecondGen(req.model) ? deps.slotWaitMs : 0)
    },
  )

  app.get<{ Params: { token: string } }>(
    '/v1/audio/speech/continuations/:token',
    { schema: continuationSchema },
    async (request, reply) => {
      const lease = requestLease(reply)
      const principal = await authenticate(keys, request, 'tts:generate')
      const body = await continuations.redeem(request.params.token, principal.ownerId)
      const req = body === undefined ? undefined : resolveSpeechRequest(body)
      // One-request clones are never kept as continuations (see above).
      if (!req || req.voice.kind === 'inline') {
        throw new ApiError(
          404,
          'detail',
          'This continuation does not exist, was used already or has expired.',
        )
      }
      // Resolved again where it is redeemed (any instance): a saved voice deleted meanwhile is now a 404.
      const voice = await speakingVoice(deps.voices, principal.ownerId, req.voice)
      return serve(reply, lease, principal.ownerId, req, voice, deps.continuationWaitMs)
    },
  )

  /** Takes a slot (waiting up to `waitMs`) and streams the request's audio in its format. */
  async function serve(
    reply: FastifyReply,
    lease: RequestLease,
    ownerId: string,
    req: ResolvedSpeechRequest,
    source: VoiceSource,
    waitMs: number,
  ) {
    // The client going away (or the duration limit cutting the response) aborts the lease's signal: synthesis
    // stops at once, the engine is freed and every slot the lease holds goes back.
    const { signal } = lease
    const overtime = setTimeout(() => reply.raw.destroy(), deps.requestMs)
    lease.defer(() => clearTimeout(overtime))
    const acquired = await ttsSlots.acquire(ownerId, waitMs, signal)
    if (!('slot' in acquired)) {
      if (acquired.rejected === 'timeout') throw noGenerationSlot()
      throw rateLimited({
        'x-ratelimit-limit-concurrent-requests': String(ttsSlots.limit),
        'x-ratelimit-remaining-concurrent-requests': '0',
      })
    }
    lease.hold(acquired.slot)
    // A one-request clone is prepared now, holding a cloning slot as well until the response ends (contract 8).
    let voice: SpeakingVoice
    if ('prepare' in source) {
      const clone = await source.prepare(signal)
      lease.hold(clone.slot)
      voice = clone.voice
    } else {
      voice = source
    }
    // A client that left while this request waited or prepared gets nothing more; its slots are back already.
    signal.throwIfAborted()

    let samples = 0
    const generated = (async function* () {
      for await (const chunk of speak(synthesizer, speakRequestFor(req, voice, signal))) {
        samples += chunk.length
        yield chunk
      }
    })()
    // From the request's arrival to its audio starting (checks, admission, the voice): the rest of a client's
    // time to first audio is the network, the engine's first chunk and the client's own buffering.
    const serviceMs = reply.elapsedTime
    // Nothing is sent before the first sound: text that gives none is refused instead of answered with silence.
    const { audio: pcm, silent } = await untilSound(generated)
    const markup = isSecondGen(req.model)
    if (silent && !asksForSilence(req.input, markup)) throw nothingToSpeak(req.input, markup)

    reply.headers({
      'x-model': req.model,
      'x-stream-format': req.streamFormat,
      'cache-control': 'no-store',
      'server-timing': `service;dur=${serviceMs.toFixed(1)}`,
    })

    if (req.streamFormat === 'sse') {
      reply.header('content-type', 'text/event-stream')
      const frames = async function* () {
        yield* audioDeltaFrames(req.responseFormat, pcm, signal)
        yield sseFrame<SpeechSseEvent>({ type: 'speech.audio.done', usage: usageFor(req, samples) })
      }
      return reply.send(Readable.from(frames()))
    }

    reply.header('content-type', CONTENT_TYPES[req.responseFormat])
    if (!req.stream) {
      // One complete file, sent only after the whole text is generated (4.1) — which lets the whole utterance be
      // loudness-normalized, something a stream cannot do (docs/api.md).
      const parts: Int16Array[] = []
      for await (const chunk of pcm) parts.push(chunk)
      const whole = normalizeLoudness(concat(parts, Int16Array), SAMPLE_RATE)
      if (req.responseFormat === 'wav')
        return reply.send(Buffer.concat([wavHeader(whole.byteLength), pcmBytes(whole)]))
      if (req.responseFormat === 'pcm') return reply.send(pcmBytes(whole))
      // A complete file states its length where its container can (FLAC's STREAMINFO, MP3's Xing frame).
      const file = await encodeWhole(req.responseFormat, whole, { sampleRate: SAMPLE_RATE, signal })
      return reply.send(Buffer.from(file.buffer, file.byteOffset, file.byteLength))
    }
    return reply.send(Readable.from(encodeStream(req.responseFormat, pcm, signal)))
  }
}

/** A voice ready to speak, or a one-request reference still to prepare once the request holds its TTS slot. */
type VoiceSource =
  | SpeakingVoice
  | { prepare(signal: AbortSignal): Promise<{ voice: SpeakingVoice; slot: Slot }> }

const REFERENCE_FORMATS = ['wav', 'mp3', 'ogg', 'opus', 'aac', 'flac', 'webm', 'mp4', 'm4a']

/** The base64 reference of the JSON form (2.4); its format is checked, the bytes themselves tell the decoder. */
function inlineReferenceBytes({ data, format }: { data: string; format: string }): Buffer {
  if (!REFERENCE_FORMATS.includes(format.toLowerCase())) {
    throw badRequest(
      `voice.reference_audio.format must be one of ${REFERENCE_FORMATS.join(', ')}.`,
      'voice.reference_audio.format',
    )
  }
  const compact = data.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw badRequest('voice.reference_audio.data must be Base64.', 'voice.reference_audio.data')
  }
  return Buffer.from(compact, 'base64')
}

/** The multipart fields of one-request cloning (4.2); any other field is refused. */
const CLONING_TEXT_FIELDS = [
  'model',
  'input',
  'reference_transcript',
  'response_format',
  'stream_format',
  'speed',
  'instructions',
  'mode',
  ...DECODING_FIELDS,
]
const NUMERIC_FIELDS: readonly string[] = ['speed', ...DECODING_FIELDS]

/**
 * Multipart speech (4.2): the form is read and checked like a JSON body — numbers arrive as text and are read as
 * JSON numbers, so "50" and "50.0" are fine and "fifty" is refused like a JSON string would be.
 */
async function readCloningForm(
  request: FastifyRequest,
): Promise<{ req: ResolvedSpeechRequest; reference: Buffer }> {
  const form = await readMultipart(request, {
    fields: CLONING_TEXT_FIELDS,
    files: { reference_audio: MAX_REFERENCE_BYTES },
  })
  const reference = form.files.reference_audio?.bytes
  if (!reference) {
    throw badRequest(
      'A multipart speech request needs reference_audio (the reference clip as a file).',
      'reference_audio',
    )
  }
  if (form.fields.model !== SECOND_GEN_MODEL) {
    throw invalidField('model', `One-request cloning needs model ${SECOND_GEN_MODEL}.`)
  }
  const body: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(form.fields)) {
    if (name === 'reference_transcript') continue
    body[name] = NUMERIC_FIELDS.includes(name) ? (value.trim() === '' ? Number.NaN : Number(value)) : value
  }
  body.voice = {
    reference_audio: { data: 'multipart', format: 'multipart' },
    reference_transcript: form.fields.reference_transcript,
  }
  return { req: resolveSpeechRequest(body), reference }
}
