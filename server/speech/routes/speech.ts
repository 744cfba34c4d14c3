import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyReply } from 'fastify'
import {
  builtinVoiceLanguage,
  CONTENT_TYPES,
  isSecondGen,
  MAX_SPEECH_BODY_BYTES,
  SAMPLE_RATE,
  type SpeechSseEvent,
  type Usage,
} from '../../../schema/index.ts'
import {
  AUDIO_TOKENS_PER_SECOND,
  concatPcm,
  normalizeLoudness,
  type Synthesizer,
  speak,
  type VoiceParams,
  voiceParamsFor,
} from '../../engine/index.ts'
import { encodeStream, fixedSizePieces, pcmBytes, wavHeader } from '../audio-out.ts'
import { authenticate } from '../auth.ts'
import { ApiError, badRequest, noGenerationSlot, rateLimited, voiceNotFound } from '../errors.ts'
import type { SlotPool } from '../slots.ts'
import { type ResolvedSpeechRequest, resolveSpeechRequest } from '../speech-request.ts'
import type { KeyStore } from '../store/keys.ts'

export interface SpeechRouteDeps {
  keys: KeyStore
  synthesizer: Synthesizer
  ttsSlots: SlotPool
  /** How long a second-generation request waits in line for a slot before 503 (spec 8: about 8 s). */
  slotWaitMs: number
  /** At capacity, answer 303 with a continuation URL instead of waiting or refusing (4.1). */
  redirectWhenBusy: boolean
  /** How long a continuation waits for a slot before 503. */
  continuationWaitMs: number
  /** Request duration limit (spec 8: 30 minutes); a stream cut by it ends without its completion marker. */
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

const sseFrame = (event: SpeechSseEvent) => `data: ${JSON.stringify(event)}\n\n`

/** Continuations of redirected requests (4.1): single use, bound to their owner, short-lived. */
const CONTINUATION_TTL_MS = 60_000

interface Continuation {
  ownerId: string
  req: ResolvedSpeechRequest
  voiceId: string
  voice: VoiceParams
  timer: NodeJS.Timeout
}

export function speechRoutes(app: FastifyInstance, deps: SpeechRouteDeps) {
  const { keys, synthesizer, ttsSlots } = deps
  const continuations = new Map<string, Continuation>()
  app.addHook('onClose', async () => {
    for (const c of continuations.values()) clearTimeout(c.timer)
  })

  app.post('/v1/audio/speech', { bodyLimit: MAX_SPEECH_BODY_BYTES }, async (request, reply) => {
    const principal = authenticate(keys, request, 'tts:generate')
    const req = resolveSpeechRequest(request.body)
    if (req.voice.kind === 'saved') throw voiceNotFound()
    if (req.voice.kind === 'inline')
      throw badRequest('Inline reference voices are not available yet.', 'voice')
    const voiceId = req.voice.id
    const voice = voiceParamsFor(voiceId)
    if (!voice) throw voiceNotFound()

    if (deps.redirectWhenBusy && !ttsSlots.available(principal.ownerId)) {
      // At capacity, hand out a continuation URL instead of waiting or refusing; the body stays empty (4.1).
      const token = randomBytes(16).toString('hex')
      const timer = setTimeout(() => continuations.delete(token), CONTINUATION_TTL_MS)
      continuations.set(token, { ownerId: principal.ownerId, req, voiceId, voice, timer })
      return reply
        .code(303)
        .headers({ location: `/v1/audio/speech/continuations/${token}`, 'cache-control': 'no-store' })
        .send()
    }
    return serve(reply, principal.ownerId, req, voiceId, voice, isSecondGen(req.model) ? deps.slotWaitMs : 0)
  })

  app.get<{ Params: { token: string } }>('/v1/audio/speech/continuations/:token', async (request, reply) => {
    const principal = authenticate(keys, request, 'tts:generate')
    const c = continuations.get(request.params.token)
    if (!c || c.ownerId !== principal.ownerId) {
      throw new ApiError(404, 'detail', 'This continuation does not exist, was used already or has expired.')
    }
    continuations.delete(request.params.token)
    clearTimeout(c.timer)
    return serve(reply, c.ownerId, c.req, c.voiceId, c.voice, deps.continuationWaitMs)
  })

  /** Takes a slot (waiting up to `waitMs`) and streams the request's audio in its format. */
  async function serve(
    reply: FastifyReply,
    ownerId: string,
    req: ResolvedSpeechRequest,
    voiceId: string,
    voice: VoiceParams,
    waitMs: number,
  ) {
    // The client going away must stop synthesis at once, free the engine and give back the slot.
    const abort = new AbortController()
    const overtime = setTimeout(() => {
      abort.abort()
      reply.raw.destroy()
    }, deps.requestMs)
    reply.raw.on('close', () => {
      clearTimeout(overtime)
      abort.abort()
    })
    const acquired = await ttsSlots.acquire(ownerId, waitMs, abort.signal)
    if (!('slot' in acquired)) {
      if (acquired.rejected === 'timeout') throw noGenerationSlot()
      throw rateLimited({
        'x-ratelimit-limit-concurrent-requests': String(ttsSlots.limit),
        'x-ratelimit-remaining-concurrent-requests': '0',
      })
    }
    reply.raw.on('close', () => acquired.slot.release())

    let samples = 0
    const pcm = (async function* () {
      for await (const chunk of speak(synthesizer, {
        text: req.input,
        voice,
        language: builtinVoiceLanguage(voiceId) ?? 'en-US',
        speed: req.speed,
        markup: isSecondGen(req.model),
        // Decoding fields are accepted and ignored by the 0.8 models (2.1 rule 4).
        maxNewTokens: isSecondGen(req.model) ? req.decoding.max_new_tokens : null,
        signal: abort.signal,
      })) {
        samples += chunk.length
        yield chunk
      }
    })()

    reply.headers({
      'x-model': req.model,
      'x-stream-format': req.streamFormat,
      'cache-control': 'no-store',
    })

    if (req.streamFormat === 'sse') {
      reply.header('content-type', 'text/event-stream')
      const encoded = encodeStream(req.responseFormat, pcm, abort.signal)
      // PCM deltas are exactly 4,800 bytes (6.1); other formats go out as their encoder emits them.
      const pieces = req.responseFormat === 'pcm' ? fixedSizePieces(encoded) : encoded
      const frames = async function* () {
        for await (const piece of pieces) {
          yield sseFrame({ type: 'speech.audio.delta', audio: piece.toString('base64') })
        }
        yield sseFrame({ type: 'speech.audio.done', usage: usageFor(req, samples) })
      }
      return reply.send(Readable.from(frames()))
    }

    reply.header('content-type', CONTENT_TYPES[req.responseFormat])
    if (!req.stream) {
      // One complete file, sent only after the whole text is generated (4.1) — which lets the whole utterance be
      // loudness-normalized, something a stream cannot do (docs/api.md).
      const parts: Int16Array[] = []
      for await (const chunk of pcm) parts.push(chunk)
      const whole = normalizeLoudness(concatPcm(parts), SAMPLE_RATE)
      if (req.responseFormat === 'wav')
        return reply.send(Buffer.concat([wavHeader(whole.byteLength), pcmBytes(whole)]))
      const chunks: Buffer[] = []
      const source = (async function* () {
        yield whole
      })()
      for await (const piece of encodeStream(req.responseFormat, source, abort.signal)) chunks.push(piece)
      return reply.send(Buffer.concat(chunks))
    }
    return reply.send(Readable.from(encodeStream(req.responseFormat, pcm, abort.signal)))
  }
}
