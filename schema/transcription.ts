import { z } from 'zod'
import type { RealtimeError } from './realtime-tts.ts'

/**
 * Transcription: the upload route `POST /v1/audio/transcriptions`, the realtime transcription sockets `/v1/realtime`
 * and `/v1/stt/realtime`, ephemeral client secrets and WebRTC signalling (contract 4.11, 4.12, 6.3, 6.4, 7, 8). Fields the
 * spec leaves open follow the widely used realtime/transcription convention; every decision is in
 * docs/transcription.md.
 */

/** The one recognition model id (CMU PocketSphinx, US English). `model` may be omitted. */
export const TRANSCRIPTION_MODEL = 'svc-stt-latest'
export const TRANSCRIPTION_MODELS = [TRANSCRIPTION_MODEL] as const

export const MAX_TRANSCRIPTION_FILE_BYTES = 25 * 1024 * 1024
/** Realtime: decoded audio of one `input_audio_buffer.append`, and one WebSocket message (contract 8). */
export const MAX_APPEND_AUDIO_BYTES = 15 * 1024 * 1024
export const MAX_REALTIME_MESSAGE_BYTES = 24 * 1024 * 1024
/** Concurrent transcription uploads and realtime sessions per organization, combined (contract 8). */
export const ASR_CONCURRENT_SESSIONS = 5
export const SPEAKER_COUNT_MIN = 1
export const SPEAKER_COUNT_MAX = 20

export const TRANSCRIPTION_RESPONSE_FORMATS = ['json', 'verbose_json', 'text', 'srt', 'vtt'] as const
export type TranscriptionResponseFormat = (typeof TRANSCRIPTION_RESPONSE_FORMATS)[number]

/** Multipart form fields of the upload. All arrive as strings; numbers and booleans are parsed by the service. */
export const transcriptionFormSchema = z.object({
  file: z
    .string()
    .describe('The audio file: WAV (incl. float), MP3, OGG, AAC, FLAC, WebM or MP4; at most 25 MiB.'),
  model: z.enum(TRANSCRIPTION_MODELS).optional(),
  response_format: z.enum(TRANSCRIPTION_RESPONSE_FORMATS).optional().describe('Default json.'),
  stream: z.enum(['true', 'false']).optional().describe('SSE events; json and verbose_json only.'),
  language: z.string().optional().describe('en (or en-XX) only.'),
  prompt: z.string().optional().describe('Accepted and ignored.'),
  temperature: z.string().optional().describe('Accepted and ignored; a number from 0 to 1.'),
  'timestamp_granularities[]': z
    .enum(['word', 'segment'])
    .optional()
    .describe('Accepted; verbose_json always carries both words and segments.'),
  diarization: z.enum(['true', 'false']).optional().describe('Speaker attribution; default false.'),
  num_speakers: z.string().optional().describe('Integer 1–20, exact; not with min/max.'),
  min_speakers: z.string().optional().describe('Integer 1–20.'),
  max_speakers: z.string().optional().describe('Integer 1–20, not below min_speakers.'),
})

export const WARNING_CODES = ['diarization_failed', 'diarization_text_unavailable'] as const
export const transcriptionWarningSchema = z.object({
  code: z.enum(WARNING_CODES),
  message: z.string(),
})
export type TranscriptionWarning = z.infer<typeof transcriptionWarningSchema>

export const diarizationSegmentSchema = z.object({
  id: z.number().int(),
  start: z.number(),
  end: z.number(),
  speaker: z.string(),
})
export const diarizationTurnSchema = z.object({
  speaker: z.string().nullable(),
  start: z.number().nullable(),
  end: z.number().nullable(),
  text: z.string(),
})
export type DiarizationTurn = z.infer<typeof diarizationTurnSchema>

export const diarizationBlockSchema = z.object({
  status: z.enum(['completed', 'failed']),
  speakers: z.array(z.string()),
  segments: z.array(diarizationSegmentSchema),
  turns: z.array(diarizationTurnSchema).optional(),
})
export type DiarizationBlock = z.infer<typeof diarizationBlockSchema>

export const transcriptSegmentSchema = z.object({
  id: z.number().int(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
})
export type TranscriptSegment = z.infer<typeof transcriptSegmentSchema>

export const transcriptWordSchema = z.object({
  word: z.string(),
  start: z.number(),
  end: z.number(),
  confidence: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("The recognizer's posterior probability of the word (0…1); absent when the engine gives none."),
})

export const transcriptionJsonSchema = z.object({
  text: z.string(),
  warnings: z.array(transcriptionWarningSchema),
  diarization: diarizationBlockSchema.optional(),
})
export type TranscriptionJson = z.infer<typeof transcriptionJsonSchema>

export const transcriptionVerboseJsonSchema = transcriptionJsonSchema.extend({
  task: z.literal('transcribe'),
  language: z.string(),
  duration: z.number(),
  segments: z.array(transcriptSegmentSchema),
  words: z.array(transcriptWordSchema),
})
export type TranscriptionVerboseJson = z.infer<typeof transcriptionVerboseJsonSchema>

export const transcriptionSseEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('transcript.text.delta'), delta: z.string() }),
  transcriptionJsonSchema.extend({ type: z.literal('transcript.text.done') }),
  transcriptionVerboseJsonSchema.extend({ type: z.literal('transcript.text.done') }),
  z.object({
    type: z.literal('error'),
    error: z.object({
      type: z.string(),
      code: z.string(),
      message: z.string(),
      param: z.string().nullable(),
    }),
  }),
])
export type TranscriptionSseEvent =
  | { type: 'transcript.text.delta'; delta: string }
  | ({ type: 'transcript.text.done' } & (TranscriptionJson | TranscriptionVerboseJson))
  | RealtimeError

// ---------------------------------------------------------------------------------------------------------------
// Realtime transcription sessions

export const REALTIME_INPUT_RATES = [24_000, 16_000] as const
export const DEFAULT_TURN_DETECTION = {
  type: 'server_vad' as const,
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
}

const turnDetectionSchema = z.strictObject({
  type: z.literal('server_vad'),
  threshold: z.number().min(0).max(1).optional(),
  prefix_padding_ms: z.number().int().min(0).max(5000).optional(),
  silence_duration_ms: z.number().int().min(100).max(10_000).optional(),
  create_response: z.boolean().optional(),
  interrupt_response: z.boolean().optional(),
})

/** `session.diarization` as a client sends it (contract 4.12): max_speakers out of 1–20 is clamped, not rejected. */
export const realtimeDiarizationRequestSchema = z.strictObject({
  enabled: z.boolean().optional(),
  max_speakers: z.number().optional(),
})

/** The session configuration of `session.update` and of the client-secret body (all fields optional). */
export const realtimeSessionConfigSchema = z.strictObject({
  type: z.literal('transcription').optional(),
  audio: z
    .strictObject({
      input: z
        .strictObject({
          format: z
            .strictObject({
              type: z.literal('audio/pcm'),
              rate: z.union([z.literal(24_000), z.literal(16_000)]).optional(),
            })
            .optional(),
          transcription: z
            .strictObject({
              model: z.enum(TRANSCRIPTION_MODELS).optional(),
              language: z.string().optional(),
              prompt: z.string().optional(),
            })
            .optional(),
          turn_detection: turnDetectionSchema.nullable().optional(),
          noise_reduction: z
            .strictObject({ type: z.enum(['near_field', 'far_field']) })
            .nullable()
            .optional(),
        })
        .optional(),
    })
    .optional(),
  include: z.array(z.string()).optional(),
  diarization: realtimeDiarizationRequestSchema.optional(),
})
export type RealtimeSessionConfig = z.infer<typeof realtimeSessionConfigSchema>

export const realtimeDiarizationStateSchema = z.object({
  enabled: z.boolean(),
  status: z.enum(['active', 'unavailable', 'degraded']).optional(),
  max_speakers: z.number().int(),
  max_speakers_requested: z.number().optional(),
})
export type RealtimeDiarizationState = z.infer<typeof realtimeDiarizationStateSchema>

/** The session object of `session.created`, `session.updated` and the client-secret response. */
export const realtimeSessionSchema = z.object({
  type: z.literal('transcription'),
  object: z.literal('realtime.transcription_session'),
  id: z.string().optional(),
  audio: z.object({
    input: z.object({
      format: z.object({ type: z.literal('audio/pcm'), rate: z.number().int() }),
      transcription: z.object({ model: z.string(), language: z.string(), prompt: z.string() }),
      turn_detection: z
        .object({
          type: z.literal('server_vad'),
          threshold: z.number(),
          prefix_padding_ms: z.number().int(),
          silence_duration_ms: z.number().int(),
        })
        .nullable(),
      noise_reduction: z.object({ type: z.string() }).nullable(),
    }),
  }),
  include: z.array(z.string()),
  diarization: realtimeDiarizationStateSchema.optional(),
})
export type RealtimeSession = z.infer<typeof realtimeSessionSchema>

export const sttClientMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('session.update'),
    event_id: z.string().optional(),
    session: realtimeSessionConfigSchema,
  }),
  z.object({
    type: z.literal('transcription_session.update'),
    event_id: z.string().optional(),
    session: realtimeSessionConfigSchema,
  }),
  z.object({
    type: z.literal('input_audio_buffer.append'),
    event_id: z.string().optional(),
    audio: z.string(),
  }),
  z.object({ type: z.literal('input_audio_buffer.commit'), event_id: z.string().optional() }),
  z.object({ type: z.literal('input_audio_buffer.clear'), event_id: z.string().optional() }),
])
export type SttClientMessage = z.infer<typeof sttClientMessageSchema>

export type SpeakerAttribution = 'commit' | 'endpoint' | 'unattributed'

export interface SpeakerSegmentMs {
  speaker: string | null
  segment_start_ms: number
  segment_end_ms: number
}

export type SttServerMessage = { event_id: string } & (
  | { type: 'session.created'; session: RealtimeSession }
  | { type: 'session.updated'; session: RealtimeSession }
  | { type: 'input_audio_buffer.speech_started'; audio_start_ms: number; item_id: string }
  | { type: 'input_audio_buffer.speech_stopped'; audio_end_ms: number; item_id: string }
  | { type: 'input_audio_buffer.committed'; item_id: string; previous_item_id: string | null }
  | { type: 'input_audio_buffer.cleared' }
  | {
      type: 'conversation.item.input_audio_transcription.delta'
      item_id: string
      content_index: 0
      delta: string
    }
  | {
      type: 'conversation.item.input_audio_transcription.completed'
      item_id: string
      content_index: 0
      transcript: string
      audio_start_ms: number
      audio_end_ms: number
      segments: Array<{ text: string; segment_start_ms: number; segment_end_ms: number }>
    }
  | {
      type: 'conversation.item.input_audio_transcription.failed'
      item_id: string
      content_index: 0
      error: { type: string; code: string; message: string; param: string | null }
    }
  | {
      type: 'conversation.item.input_audio_transcription.speakers'
      item_id: string
      speaker: string | null
      text: string
      attribution: SpeakerAttribution
      segments: SpeakerSegmentMs[]
    }
  | RealtimeError
)

// ---------------------------------------------------------------------------------------------------------------
// Ephemeral client secrets and WebRTC signalling

export const CLIENT_SECRET_TTL = { min: 10, max: 7200, default: 600 } as const

export const clientSecretRequestSchema = z.strictObject({
  session: realtimeSessionConfigSchema.optional(),
  expires_after: z
    .strictObject({
      anchor: z.literal('created_at').optional(),
      seconds: z.number().int().min(CLIENT_SECRET_TTL.min).max(CLIENT_SECRET_TTL.max),
    })
    .optional(),
})
export type ClientSecretRequest = z.infer<typeof clientSecretRequestSchema>

export const clientSecretResponseSchema = z.object({
  value: z.string(),
  expires_at: z.number().int(),
  session: realtimeSessionSchema,
})
export type ClientSecretResponse = z.infer<typeof clientSecretResponseSchema>
