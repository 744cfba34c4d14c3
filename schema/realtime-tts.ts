import { z } from 'zod'
import { decodingField, MODES, type Usage } from './speech.ts'

/** The text-input WebSocket `/v1/tts/realtime` (contract 4.10, 6.2, 6.3); payloads the contract leaves open: docs/realtime-tts.md. */

export const MAX_SESSION_CHARS = 262_144
export const MAX_APPEND_CHARS = 8_192
export const MAX_TTS_FRAME_BYTES = 64 * 1024
export const TTS_IDLE_TIMEOUT_MS = 5 * 60_000
export const TTS_SESSION_MS = 2 * 60 * 60_000

/** Numbers arrive as query strings; anything that is not a plain number stays a string and fails validation. */
const queryNumber = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v), schema)

export const realtimeTtsQuerySchema = z.strictObject({
  model: z.string().optional(),
  voice: z.string().min(1).optional(),
  response_format: z.string().optional(),
  speed: queryNumber(z.number().min(0.25).max(4.0)).optional(),
  mode: z.enum(MODES).optional(),
  temperature: queryNumber(decodingField('temperature')),
  top_p: queryNumber(decodingField('top_p')),
  top_k: queryNumber(decodingField('top_k')),
  min_p: queryNumber(decodingField('min_p')),
  max_new_tokens: queryNumber(decodingField('max_new_tokens')),
})

export const ttsClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text.append'), text: z.string() }),
  z.object({ type: z.literal('input_text.commit') }),
  z.object({ type: z.literal('input_text.done') }),
])
export type TtsClientMessage = z.infer<typeof ttsClientMessageSchema>

export interface RealtimeError {
  type: 'error'
  error: { type: string; code: string; message: string; param: string | null }
}

export type TtsServerMessage =
  | { type: 'speech.audio.delta'; audio: string }
  | { type: 'speech.audio.done'; usage: Usage }
  | RealtimeError
