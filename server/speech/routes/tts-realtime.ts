import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { builtinVoiceLanguage, realtimeTtsQuerySchema, SECOND_GEN_MODEL } from '../../../schema/index.ts'
import { type Synthesizer, type VoiceParams, voiceParamsFor } from '../../engine/index.ts'
import { authenticate } from '../auth.ts'
import { ApiError, invalidField } from '../errors.ts'
import { errorEvent, TtsSession } from '../realtime/tts-session.ts'
import type { SlotPool } from '../slots.ts'
import { resolveVoice, toApiError } from '../speech-request.ts'
import type { KeyStore } from '../store/keys.ts'

export interface TtsRealtimeDeps {
  keys: KeyStore
  synthesizer: Synthesizer
  ttsSlots: SlotPool
  idleMs: number
  maxSessionMs: number
}

interface Admitted {
  voice: { kind: 'builtin'; params: VoiceParams; language: string } | { kind: 'saved'; id: string }
  speed: number
  maxNewTokens: number | null
}

declare module 'fastify' {
  interface FastifyRequest {
    ttsSession: Admitted
  }
}

/**
 * Everything that can be refused with an HTTP status is refused before the upgrade (spec 4.10, 5.4, 7): key,
 * permission, query, model, format, and a custom voice on an ephemeral credential.
 */
function admit(keys: KeyStore, request: FastifyRequest): Admitted {
  const principal = authenticate(keys, request, 'tts:generate')
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
  if (voice.kind === 'saved') {
    if (principal.kind === 'ephemeral') {
      throw new ApiError(
        403,
        'envelope',
        'Custom voices need a durable API key; ephemeral credentials cannot use them.',
        'durable_api_key_required',
        'voice',
        'permission_error',
      )
    }
    return {
      voice: { kind: 'saved', id: voice.id },
      speed: q.speed ?? 1,
      maxNewTokens: q.max_new_tokens ?? null,
    }
  }
  const id = voice.kind === 'builtin' ? voice.id : ''
  const params = voiceParamsFor(id)
  if (!params) throw invalidField('voice', 'Unknown voice.')
  return {
    voice: { kind: 'builtin', params, language: builtinVoiceLanguage(id) ?? 'en-US' },
    speed: q.speed ?? 1,
    maxNewTokens: q.max_new_tokens ?? null,
  }
}

export function ttsRealtimeRoutes(app: FastifyInstance, deps: TtsRealtimeDeps) {
  app.get(
    '/v1/tts/realtime',
    {
      websocket: true,
      preValidation: async (request) => {
        request.ttsSession = admit(deps.keys, request)
      },
    },
    async (socket, request) => {
      const { voice, speed, maxNewTokens } = request.ttsSession
      /** Admission failures after the upgrade: an error event, then close 1008 (spec 6.3). */
      const refuse = (problem: Parameters<typeof errorEvent>[0]) => {
        socket.send(JSON.stringify(errorEvent(problem)))
        socket.close(1008, problem.code)
      }
      // Messages that arrive while admission finishes are held, not lost.
      const early: Array<[Buffer, boolean]> = []
      const hold = (data: Buffer, isBinary: boolean) => early.push([data, isBinary])
      socket.on('message', hold)

      if (voice.kind === 'saved') {
        // Saved voices arrive with the voices-and-consents store; until then no saved voice exists for anyone.
        return refuse({
          code: 'voice_not_found',
          message: 'The voice does not exist or is not available to this key.',
          param: 'voice',
        })
      }
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
          voice: voice.params,
          language: voice.language,
          speed,
          maxNewTokens,
          idleMs: deps.idleMs,
          maxSessionMs: deps.maxSessionMs,
        },
        () => acquired.slot.release(),
      )
      socket.off('message', hold)
      socket.on('message', (data: Buffer, isBinary: boolean) => session.receive(data, isBinary))
      socket.on('close', () => session.dispose())
      socket.on('error', () => session.dispose())
      for (const [data, isBinary] of early) session.receive(data, isBinary)
    },
  )
}
