import { z } from 'zod'
import {
  clientSecretRequestSchema,
  clientSecretResponseSchema,
  realtimeSessionConfigSchema,
  realtimeSessionSchema,
  transcriptionFormSchema,
  transcriptionJsonSchema,
  transcriptionSseEventSchema,
  transcriptionVerboseJsonSchema,
} from '../../schema/index.ts'

/** OpenAPI paths of transcription (contract 4.11, 4.12, 7, 8); decisions in docs/transcription.md. */

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' })

const json = (ref: string, description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
})
const envelope = (description: string) => json('ErrorEnvelope', description)
const detail = (description: string) => json('DetailError', description)
const either = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        oneOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { $ref: '#/components/schemas/DetailError' }],
      },
    },
  },
})

const uploadForm = (() => {
  const schema = jsonSchema(transcriptionFormSchema) as { properties: Record<string, object> }
  schema.properties.file = {
    type: 'string',
    format: 'binary',
    description: 'The audio file, at most 25 MiB.',
  }
  return schema
})()

const busy = envelope(
  '`rate_limit_exceeded`: 5 transcription uploads and realtime sessions per organization. Headers x-ratelimit-limit-concurrent-sessions: 5, x-ratelimit-remaining-concurrent-sessions: 0, Retry-After: 1.',
)
const auth = {
  '401': envelope('Missing (`missing_api_key`) or invalid (`invalid_api_key`) key.'),
  '403': envelope('The key lacks `audio:transcribe` (`insufficient_permissions`).'),
}

export const transcriptionSchemas = {
  TranscriptionJson: jsonSchema(transcriptionJsonSchema),
  TranscriptionVerboseJson: jsonSchema(transcriptionVerboseJsonSchema),
  TranscriptionSseEvent: jsonSchema(transcriptionSseEventSchema),
  RealtimeSessionConfig: jsonSchema(realtimeSessionConfigSchema),
  RealtimeSession: jsonSchema(realtimeSessionSchema),
  ClientSecretRequest: jsonSchema(clientSecretRequestSchema),
  ClientSecret: jsonSchema(clientSecretResponseSchema),
}

const realtimeSocket = (operationId: string) => ({
  get: {
    operationId,
    summary: 'WebSocket upgrade for a realtime transcription session (events: docs/transcription.md)',
    parameters: [
      { name: 'intent', in: 'query', required: false, schema: { type: 'string', enum: ['transcription'] } },
      { name: 'model', in: 'query', required: false, schema: { type: 'string', enum: ['svc-stt-latest'] } },
    ],
    responses: {
      '101': {
        description:
          'Switching protocols. At capacity the upgrade completes, an `error` event `rate_limit_exceeded` follows and the socket closes with 1000.',
      },
      '400': either('Unknown query parameter or value.'),
      ...auth,
      '503': envelope('`recognition_unavailable`: PocketSphinx is not installed.'),
    },
  },
})

export const transcriptionPaths = {
  '/v1/audio/transcriptions': {
    post: {
      operationId: 'createTranscription',
      summary: 'Transcribe an audio file, optionally with speaker attribution',
      requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadForm } } },
      responses: {
        '200': {
          description:
            'json / verbose_json bodies, text / srt / vtt as text, or (stream=true) SSE `data:` lines of TranscriptionSseEvent.',
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/TranscriptionJson' },
                  { $ref: '#/components/schemas/TranscriptionVerboseJson' },
                ],
              },
            },
            'text/plain': { schema: { type: 'string' } },
            'application/x-subrip': { schema: { type: 'string' } },
            'text/vtt': { schema: { type: 'string' } },
            'text/event-stream': { schema: { type: 'string' } },
          },
        },
        '400': either(
          '`invalid_diarization_options`, `invalid_response_format` or `invalid_request_error` (model) in the envelope; other fields and undecodable audio in `detail`.',
        ),
        ...auth,
        '413': detail('file larger than 25 MiB.'),
        '415': detail('Not multipart/form-data.'),
        '429': busy,
        '501': envelope('`diarization_not_enabled`: diarization is switched off in this deployment.'),
        '503': envelope('`recognition_unavailable`.'),
      },
    },
  },
  '/v1/realtime': realtimeSocket('realtimeTranscriptionSocket'),
  '/v1/stt/realtime': realtimeSocket('sttRealtimeSocket'),
  '/v1/realtime/client_secrets': {
    post: {
      operationId: 'createClientSecret',
      summary: 'Mint a short-lived ek_ credential for one realtime transcription session',
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ClientSecretRequest' } } },
      },
      responses: {
        '200': json('ClientSecret', 'The ek_ value, its expiry (Unix seconds) and the session it opens.'),
        '400': detail('Unknown or mistyped field (param = its path).'),
        '401': auth['401'],
        '403': envelope('`insufficient_permissions`, or `durable_api_key_required` for an ek_ credential.'),
      },
    },
  },
  '/v1/realtime/calls': {
    post: {
      operationId: 'createRealtimeCall',
      summary: 'A WebRTC call into a realtime transcription session (docs/transcription.md)',
      requestBody: {
        required: true,
        content: {
          'application/sdp': { schema: { type: 'string' } },
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                sdp: { type: 'string' },
                session: { type: 'string', description: 'RealtimeSessionConfig as JSON.' },
              },
              required: ['sdp'],
            },
          },
        },
      },
      responses: {
        '201': {
          description:
            'The SDP answer; the call is at `Location`. Session events travel on the data channel.',
          headers: { location: { schema: { type: 'string' } } },
          content: { 'application/sdp': { schema: { type: 'string' } } },
        },
        '400': either('`diarization_not_supported_on_transport`, or a bad SDP offer / session (`detail`).'),
        ...auth,
        '429': busy,
      },
    },
  },
  '/v1/realtime/calls/{call_id}': {
    delete: {
      operationId: 'hangUpRealtimeCall',
      summary: 'Hangs up a call of this key’s owner',
      parameters: [{ name: 'call_id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '204': { description: 'Hung up; its slot is free.' },
        ...auth,
        '404': envelope('`call_not_found`: no call in progress with this id for this key.'),
      },
    },
  },
}
