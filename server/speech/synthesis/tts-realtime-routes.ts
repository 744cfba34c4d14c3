import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { realtimeTtsQuerySchema, SECOND_GEN_MODEL } from '../../../schema/index.ts'
import type { Synthesizer } from '../../engine/index.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { ApiError, durableKeyRequired, invalidField, upgradeRequired } from '../errors.ts'
import type { SlotPool } from '../limits/slots.ts'
import { detail, either, keyRefusals, noBody } from '../route-docs.ts'
import { type RequestedVoice, type SpeakingVoice, speakingVoice } from '../voices/speaking-voice.ts'
import type { VoiceService } from '../voices/voice-service.ts'
import { resolveDecoding, resolveVoice, toApiError } from './speech-request.ts'
import { errorEvent, TtsSession } from './tts-session.ts'

export interface TtsRealtimeDeps {
  keys: KeyStore
  synthesizer: Synthesizer
  voices: VoiceService
  ttsSlots: SlotPool
  idleMs: number
  maxSessionMs: number
}

interface Admitted {
  voice: RequestedVoice
  speed: number
  maxNewTokens: number | null
  decoding: { temperature: number; top_p: number; top_k: number; min_p: number }
}

declare module 'fastify' {
  interface FastifyRequest {
    ttsSession: Admitted
  }
}

/**
 * Everything that can be refused with an HTTP status is refused before the upgrade (contract 4.10, 5.4, 7): key,
 * permission, query, model, format, and a custom voice on an ephemeral credential.
 */
async function admit(keys: KeyStore, request: FastifyRequest): Promise<Admitted> {
  // A plain GET would get the WebSocket plugin's bare 404; it gets the contract's shape like every other refusal.
  if (!request.ws) throw upgradeRequired()
  const principal = await authenticate(keys, request, 'tts:generate')
  const parsed = realtimeTtsQuerySchema.safeParse(request.query)
  if (!parsed.success) throw toApiError(parsed.error.issues[0] as z.core.$ZodIssue)
  const q = parsed.data
  if (q.response_format !== undefined && q.response_format !== 'pcm') {
    throw new ApiError(
      400,
      'envelope',
      'The text-input WebSocket streams headerless 24 kHz PCM16 only; set response_format=pcm or omit it.',
      'unsupported_audio_format',
      'response_format',
    )
  }
  if (q.model !== undefined && q.model !== SECOND_GEN_MODEL) {
    throw invalidField('model', `The text-input WebSocket serves ${SECOND_GEN_MODEL} only.`)
  }
  const requested = q.voice?.startsWith('voice_') ? { id: q.voice } : q.voice
  const voice = resolveVoice(SECOND_GEN_MODEL, requested)
  // The query holds an id string, so the inline form cannot reach here.
  if (voice.kind === 'inline') throw invalidField('voice', 'Unknown voice.')
  if (voice.kind === 'saved' && principal.kind === 'ephemeral') {
    throw durableKeyRequired('A custom voice', 'voice')
  }
  // Decoding fields come from the query, each omitted one from the mode's preset (2.8 rules 1 and 6).
  const decoding = resolveDecoding(q.mode ?? 'expressive', q)
  return { voice, speed: q.speed ?? 1, maxNewTokens: decoding.max_new_tokens, decoding }
}

const socketSchema = {
  operationId: 'textInputSpeechSocket',
  summary: 'WebSocket upgrade for text-input streaming speech (messages: docs/realtime-tts.md)',
  tags: ['synthesis'],
  querystring: realtimeTtsQuerySchema,
  response: {
    101: noBody('Switching protocols.'),
    400: either(
      '`unsupported_audio_format`, `invalid_request_error` (model, voice, decoding values) in the envelope; other query fields in `detail` (with `param`).',
    ),
    ...keyRefusals('tts:generate', ', or `durable_api_key_required` for a saved voice with an ek_ key'),
    426: detail('A plain GET, without the WebSocket upgrade. Header Upgrade: websocket.'),
  },
}

export function ttsRealtimeRoutes(app: FastifyInstance, deps: TtsRealtimeDeps) {
  app.get(
    '/v1/tts/realtime',
    {
      websocket: true,
      schema: socketSchema,
      preValidation: async (request) => {
        request.ttsSession = await admit(deps.keys, request)
      },
    },
    async (socket, request) => {
      const { voice, speed, maxNewTokens, decoding } = request.ttsSession
      /** Admission failures after the upgrade: an error event, then close 1008 (contract 6.3). */
      const refuse = (problem: Parameters<typeof errorEvent>[0]) => {
        socket.send(JSON.stringify(errorEvent(problem)))
        socket.close(1008, problem.code)
      }
      // Messages that arrive while admission finishes are held, not lost.
      const early: Array<[Buffer, boolean]> = []
      const hold = (data: Buffer, isBinary: boolean) => early.push([data, isBinary])
      socket.on('message', hold)

      // A saved voice is looked up (and prepared again if the engine changed) after the upgrade: refusals here
      // are error events, like every other admission failure on this socket.
      let speaking: SpeakingVoice
      try {
        speaking = await speakingVoice(deps.voices, request.principal.ownerId, voice)
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        return refuse({
          code: err.code ?? 'voice_not_found',
          message: err.message,
          param: 'voice',
          type: err.type,
        })
      }
      // The client may have left while the voice was looked up or prepared again (up to about 25 s): its 'close'
      // has fired already and no listener would ever dispose a session made now, nor give back its slot.
      if (socket.readyState !== socket.OPEN) return
      const acquired = await deps.ttsSlots.acquire(request.principal.ownerId, 0)
      if (!('slot' in acquired)) {
        return refuse({
          code: 'rate_limit_exceeded',
          type: 'rate_limit_error',
          message: 'Too many concurrent generations for this organization.',
        })
      }
      const session = new TtsSession(
        socket,
        {
          synthesizer: deps.synthesizer,
          voice: speaking.params,
          language: speaking.language,
          speed,
          maxNewTokens,
          decoding,
          idleMs: deps.idleMs,
          maxSessionMs: deps.maxSessionMs,
        },
        () => acquired.slot.release(),
      )
      socket.off('message', hold)
      socket.on('message', (data: Buffer, isBinary: boolean) => session.receive(data, isBinary))
      socket.on('close', () => session.dispose())
      socket.on('error', () => session.dispose())
      // Checked again now the listeners are on: whatever happened in between, the slot cannot outlive the socket.
      if (socket.readyState !== socket.OPEN) return session.dispose()
      for (const [data, isBinary] of early) session.receive(data, isBinary)
    },
  )
}
