import { z } from 'zod'
import { MAX_ALIGNMENT_SECONDS, MAX_ALIGNMENT_WORDS } from './alignment.ts'
import { CONSENT_RECORDING_MAX_BYTES, MAX_REFERENCE_BYTES, VOICE_SAMPLE_MAX_BYTES } from './consents.ts'
import { MODES } from './speech.ts'
import {
  MAX_TRANSCRIPTION_FILE_BYTES,
  TRANSCRIPTION_MODELS,
  transcriptionFormSchema,
} from './transcription.ts'
import { SECOND_GEN_MODEL } from './voices.ts'

/**
 * The speech service's route inputs that have no shape of their own elsewhere: multipart forms, path parameters,
 * socket queries and the health report. The routes carry them as their OpenAPI description; the handlers read and
 * check these inputs themselves, so each refusal keeps the contract's error shape (docs/api.md).
 */

const MiB = 1024 * 1024
const UPLOAD_FORMATS = 'WAV, MP3, OGG, AAC, FLAC, WebM or MP4'
const upload = (what: string, bytes: number) =>
  z.file().describe(`${what}, at most ${bytes / MiB} MiB; ${UPLOAD_FORMATS}.`)
const text = (description: string) => z.string().describe(description)

/** One-request cloning (4.2): the multipart form of `POST /v1/audio/speech`; any other field is a 400. */
export const cloningFormSchema = z
  .strictObject({
    model: z.literal(SECOND_GEN_MODEL),
    input: text('Text to speak.'),
    reference_audio: upload('Reference clip', MAX_REFERENCE_BYTES),
    reference_transcript: text('Exact words of the reference.').optional(),
    response_format: text('As in the JSON form.').optional(),
    stream_format: text('audio or sse.').optional(),
    speed: text('Number, 0.25–4.0.').optional(),
    instructions: text('Accepted and ignored.').optional(),
    mode: z.enum(MODES).optional(),
    temperature: text('Number.').optional(),
    top_p: text('Number.').optional(),
    top_k: text('Whole number.').optional(),
    min_p: text('Number.').optional(),
    max_new_tokens: text('Whole number.').optional(),
  })
  .describe('One-request cloning: a voice prepared from reference_audio for this request only, never saved.')

/** `POST /v1/audio/voices` (4.3). */
export const voiceFormSchema = z.strictObject({
  name: text('Name of the voice.'),
  audio_sample: upload('Reference sample, 1–120 s', VOICE_SAMPLE_MAX_BYTES),
  consent: text('cons_ id; the sample speaker must match the consent speaker.').optional(),
  reference_transcript: text('Exact words of the sample; skips internal transcription.').optional(),
})

/** `POST /v1/audio/voice_consents` (4.6). */
export const consentFormSchema = z.strictObject({
  name: text('Name of the consent.'),
  language: text('Language tag, xx or xx-XX.'),
  recording: upload('The owner saying the consent phrase, 2–30 s', CONSENT_RECORDING_MAX_BYTES),
  consent_transcript: text('Exact words of the recording; skips the recognizer.').optional(),
})

/** `POST /v1/audio/transcriptions` (4.11): the form's text fields, and the audio as a file. */
export const transcriptionUploadSchema = transcriptionFormSchema.extend({
  file: z.file().describe(`The audio file, at most ${MAX_TRANSCRIPTION_FILE_BYTES / MiB} MiB.`),
})

/** `POST /v1/audio/alignments` (docs/api.md, an extension): the recording, the span and the words said in it. */
export const alignmentFormSchema = z.strictObject({
  file: upload('The recording', MAX_TRANSCRIPTION_FILE_BYTES),
  words: text(`JSON array of the words as written, at most ${MAX_ALIGNMENT_WORDS}.`),
  start: text('Seconds into the file where the span begins (default 0).').optional(),
  end: text(
    `Seconds into the file where it ends (default: the end), at most ${MAX_ALIGNMENT_SECONDS} s after start.`,
  ).optional(),
})

/** `POST /v1/realtime/calls`: the SDP offer alone, or as a form beside the session configuration. */
export const sdpOfferSchema = z.string().describe('A WebRTC SDP offer with an audio m-line.')
export const callFormSchema = z.strictObject({
  sdp: sdpOfferSchema,
  session: text('RealtimeSessionConfig as JSON.').optional(),
})
export const sdpAnswerSchema = z.string().describe('The SDP answer.')

/** The realtime transcription sockets' query (`/v1/realtime`, `/v1/stt/realtime`); anything else is a 400. */
export const sttRealtimeQuerySchema = z.strictObject({
  intent: z.enum(['transcription']).optional(),
  model: z.enum(TRANSCRIPTION_MODELS).optional(),
})

/** `GET /v1/voices?model=`: any string is read; one that names no model is a 400 `detail` (docs/api.md). */
export const voiceCatalogQuerySchema = z.object({ model: z.string().optional() })

export const voiceIdParamsSchema = z.object({ voice_id: z.string() })
export const consentIdParamsSchema = z.object({ consent_id: z.string() })
export const callIdParamsSchema = z.object({ call_id: z.string() })
export const continuationParamsSchema = z.object({ token: z.string() })

/** `GET /health` of the speech service: 200 when its database and limit store answer, else 503 with the same body. */
export const serviceHealthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  limits: z.object({
    store: z.enum(['memory', 'redis']),
    reachable: z.boolean(),
    latency_ms: z.number().optional(),
    error: z.string().optional(),
  }),
  engines: z.object({ synthesis: z.boolean(), recognition: z.boolean(), diarization: z.boolean() }),
  database: z.object({
    backend: z.enum(['sqlite', 'postgres']),
    reachable: z.boolean(),
    latency_ms: z.number(),
  }),
})
export type ServiceHealth = z.infer<typeof serviceHealthSchema>
