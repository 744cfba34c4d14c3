import { z } from 'zod'
import {
  CONTENT_TYPES,
  consentListSchema,
  deletionSchema,
  detailErrorSchema,
  errorEnvelopeSchema,
  MAX_SPEECH_BODY_BYTES,
  RESPONSE_FORMATS,
  realtimeTtsQuerySchema,
  savedVoiceSchema,
  speechRequestSchema,
  speechSseEventSchema,
  voiceConsentSchema,
  voiceListSchema,
} from '../../schema/index.ts'
import { transcriptionPaths, transcriptionSchemas } from './openapi-transcription.ts'
import { cloningFormSchema, voicePaths } from './openapi-voices.ts'

/**
 * The published contract: an OpenAPI 3.1 document generated from the same zod schemas the service validates with,
 * so it cannot drift from the code. Served at `GET /openapi.json`; a copy is checked in as docs/openapi.json.
 */

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' })

const envelope = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
})
const detail = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/DetailError' } } },
})

const audioContent = Object.fromEntries(
  RESPONSE_FORMATS.map((f) => [
    CONTENT_TYPES[f],
    { schema: { type: 'string', contentMediaType: CONTENT_TYPES[f] } },
  ]),
)

const queryParameters = Object.entries(
  (jsonSchema(realtimeTtsQuerySchema) as { properties: Record<string, object> }).properties,
).map(([name, schema]) => ({ name, in: 'query', required: false, schema }))

export function buildOpenApiDocument() {
  // SpeechSseEvent is listed under components for generators; SSE bodies themselves are text.
  return {
    openapi: '3.1.0',
    info: {
      title: 'Speech Studio local speech service',
      version: '1.0.0',
      description:
        'Speech synthesis, voice catalog and text-input streaming. Decisions the specification leaves open: docs/api.md and docs/realtime-tts.md.',
    },
    servers: [{ url: 'http://127.0.0.1:8801' }],
    security: [{ bearer: [] }],
    paths: {
      '/v1/audio/speech': {
        post: {
          operationId: 'createSpeech',
          summary: 'Generate speech, streamed while it is produced',
          requestBody: {
            required: true,
            description: `JSON body of at most ${MAX_SPEECH_BODY_BYTES} bytes.`,
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/SpeechRequest' } },
              'multipart/form-data': { schema: cloningFormSchema },
            },
          },
          responses: {
            '200': {
              description:
                'Audio in the requested format (binary, `stream_format: audio`) or SSE events (`stream_format: sse`). Headers: x-request-id, X-Model, X-Stream-Format.',
              content: {
                ...audioContent,
                'text/event-stream': {
                  schema: {
                    type: 'string',
                    description: 'Lines `data: <SpeechSseEvent as JSON>`, no [DONE] sentinel.',
                  },
                },
              },
            },
            '400': {
              description:
                'Invalid field: the envelope (decoding values, model, voice) or `detail` (other fields).',
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      { $ref: '#/components/schemas/ErrorEnvelope' },
                      { $ref: '#/components/schemas/DetailError' },
                    ],
                  },
                },
              },
            },
            '401': envelope('Missing (`missing_api_key`) or invalid (`invalid_api_key`) key.'),
            '403': envelope('The key lacks `tts:generate` (`insufficient_permissions`).'),
            '404': envelope('`voice_not_found`.'),
            '413': detail('Body over 256 KiB.'),
            '415': detail('Content type other than JSON or multipart.'),
            '429': envelope(
              '`rate_limit_exceeded`: 2 concurrent generations per organization. Retry-After: 1.',
            ),
            '503': envelope('No generation slot within about 8 s. Retry-After: 1.'),
          },
        },
      },
      '/v1/voices': {
        get: {
          operationId: 'listVoices',
          summary: "The model's built-in voices with language metadata",
          parameters: [{ name: 'model', in: 'query', required: false, schema: { type: 'string' } }],
          responses: {
            '200': {
              description: 'The catalog.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/VoiceList' } } },
            },
            '401': envelope('Missing or invalid key.'),
          },
        },
      },
      ...voicePaths,
      ...transcriptionPaths,
      '/v1/tts/realtime': {
        get: {
          operationId: 'textInputSpeechSocket',
          summary: 'WebSocket upgrade for text-input streaming speech (messages: docs/realtime-tts.md)',
          parameters: queryParameters,
          responses: {
            '101': { description: 'Switching protocols.' },
            '400': envelope('`unsupported_audio_format`, `invalid_request_error` (with `param`).'),
            '401': envelope('Missing or invalid key.'),
            '403': envelope('`insufficient_permissions` or `durable_api_key_required`.'),
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        SpeechRequest: jsonSchema(speechRequestSchema),
        SpeechSseEvent: jsonSchema(speechSseEventSchema),
        VoiceList: jsonSchema(voiceListSchema),
        SavedVoice: jsonSchema(savedVoiceSchema),
        VoiceConsent: jsonSchema(voiceConsentSchema),
        ConsentList: jsonSchema(consentListSchema),
        Deletion: jsonSchema(deletionSchema),
        ErrorEnvelope: jsonSchema(errorEnvelopeSchema),
        DetailError: jsonSchema(detailErrorSchema),
        ...transcriptionSchemas,
      },
    },
  }
}
