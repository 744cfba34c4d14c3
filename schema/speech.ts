import { z } from 'zod'
import { MODELS } from './voices.ts'

/** Request, response and event shapes of POST /v1/audio/speech (contract 2.1, 2.6, 2.8, 6.1). */

export const RESPONSE_FORMATS = ['mp3', 'wav', 'flac', 'aac', 'opus', 'pcm'] as const
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number]

export const CONTENT_TYPES: Record<ResponseFormat, string> = {
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  aac: 'audio/aac',
  opus: 'audio/ogg',
  pcm: 'audio/L16; rate=24000; channels=1',
}

export const SAMPLE_RATE = 24_000
/** One full SSE pcm delta: 100 ms of 24 kHz mono PCM16. */
export const PCM_DELTA_BYTES = 4_800
export const MAX_INPUT_CHARS = 40_000
export const MAX_SPEECH_BODY_BYTES = 256 * 1024

export const MODES = ['stable', 'expressive'] as const
export type Mode = (typeof MODES)[number]

export interface DecodingRange {
  min: number
  max: number
  integer?: boolean
}

export const DECODING_RANGES = {
  temperature: { min: 0.3, max: 2.0 },
  top_p: { min: 0.5, max: 1.0 },
  top_k: { min: 0, max: 200, integer: true },
  min_p: { min: 0, max: 0.5 },
  max_new_tokens: { min: 500, max: 12_000, integer: true },
} as const satisfies Record<string, DecodingRange>
export type DecodingField = keyof typeof DECODING_RANGES
export const DECODING_FIELDS = Object.keys(DECODING_RANGES) as DecodingField[]

export const MODE_PRESETS: Record<
  Mode,
  { temperature: number; top_p: number; top_k: number; min_p: number }
> = {
  stable: { temperature: 0.8, top_p: 0.8, top_k: 50, min_p: 0 },
  expressive: { temperature: 0.9, top_p: 0.9, top_k: 50, min_p: 0 },
}

export function describeRange(field: DecodingField): string {
  const r: DecodingRange = DECODING_RANGES[field]
  return `${field} must be ${r.integer ? 'a whole number' : 'a number'} from ${r.min} to ${r.max}`
}

export function decodingField(field: DecodingField) {
  const r: DecodingRange = DECODING_RANGES[field]
  const message = describeRange(field)
  let n = z.number({ error: message }).min(r.min, { error: message }).max(r.max, { error: message })
  if (r.integer) n = n.int({ error: message })
  // null counts as not sent (2.8 rule 1).
  return n.nullish()
}

export const savedVoiceRefSchema = z.strictObject({ id: z.string().regex(/^voice_[0-9a-f]{32}$/) })

export const inlineReferenceSchema = z.object({
  reference_audio: z.strictObject({ data: z.string().min(1), format: z.string().min(1) }),
  reference_transcript: z.string().optional(),
  consent: z.string().optional(),
})

export const speechRequestSchema = z.strictObject({
  model: z.enum(MODELS).optional(),
  input: z
    .string()
    .min(1, { error: 'input must not be empty' })
    .max(MAX_INPUT_CHARS, {
      error: `input must be at most ${MAX_INPUT_CHARS} characters`,
    }),
  // Omitted means the model's default voice; null is not allowed (2.1 rule 1).
  voice: z.union([z.string().min(1), savedVoiceRefSchema, inlineReferenceSchema]).optional(),
  response_format: z.enum(RESPONSE_FORMATS).optional(),
  speed: z.number().min(0.25).max(4.0).optional(),
  stream_format: z.enum(['audio', 'sse']).optional(),
  stream: z.boolean().optional(),
  mode: z.enum(MODES).optional(),
  // Accepted for compatibility with the third-party request shape; the local engine ignores it.
  instructions: z.string().optional(),
  temperature: decodingField('temperature'),
  top_p: decodingField('top_p'),
  top_k: decodingField('top_k'),
  min_p: decodingField('min_p'),
  max_new_tokens: decodingField('max_new_tokens'),
})
export type SpeechRequest = z.infer<typeof speechRequestSchema>

export const usageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  total_tokens: z.number().int(),
  audio_seconds: z.number(),
  input_characters: z.number().int(),
})
export type Usage = z.infer<typeof usageSchema>

export const speechAudioDeltaSchema = z.object({ type: z.literal('speech.audio.delta'), audio: z.string() })
export const speechAudioDoneSchema = z.object({ type: z.literal('speech.audio.done'), usage: usageSchema })
export const speechSseEventSchema = z.discriminatedUnion('type', [
  speechAudioDeltaSchema,
  speechAudioDoneSchema,
])
export type SpeechSseEvent = z.infer<typeof speechSseEventSchema>
