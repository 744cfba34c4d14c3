import { z } from 'zod'
import {
  apiErrorBodySchema,
  CONTENT_TYPES,
  detailErrorSchema,
  errorEnvelopeSchema,
  RESPONSE_FORMATS,
} from '../../schema/index.ts'

/**
 * Building blocks of the routes' `schema` (their OpenAPI description, openapi.ts). A response is a description with
 * zod schemas per content type, and headers; Fastify only serializes with them (as JSON.stringify would), it never
 * validates, so each refusal keeps the shape the handler gives it.
 */

export interface ResponseDoc {
  description: string
  content?: Record<string, { schema: z.ZodType }>
  headers?: Record<string, { description: string }>
}

/** A request body per content type (multipart forms, SDP beside JSON). */
export interface BodyDoc {
  content: Record<string, { schema: z.ZodType }>
}

export const json = (schema: z.ZodType, description: string): ResponseDoc => ({
  description,
  content: { 'application/json': { schema } },
})
export const envelope = (description: string) => json(errorEnvelopeSchema, description)
export const detail = (description: string) => json(detailErrorSchema, description)
/** A status whose refusals come in either shape, depending on the field (docs/api.md, Errors). */
export const either = (description: string) => json(apiErrorBodySchema, description)
export const noBody = (description: string, headers?: ResponseDoc['headers']): ResponseDoc => ({
  description,
  ...(headers ? { headers } : {}),
})
export const text = (contentTypes: readonly string[], description: string): ResponseDoc => ({
  description,
  content: Object.fromEntries(contentTypes.map((type) => [type, { schema: z.string() }])),
})

/** The key's refusals, common to every route behind `authenticate` (access/auth.ts). */
export const keyRefusals = (permission: string, more = '') => ({
  401: envelope('Missing (`missing_api_key`) or invalid (`invalid_api_key`) key.'),
  403: envelope(`The key lacks \`${permission}\` (\`insufficient_permissions\`)${more}.`),
})

export const retryAfter = { 'retry-after': { description: 'Seconds to wait before retrying.' } }

/** Audio in any of the six formats, or SSE events of SpeechSseEvent (`stream_format: sse`). */
export const speechAudio = (description: string): ResponseDoc => ({
  description,
  content: {
    ...Object.fromEntries(
      RESPONSE_FORMATS.map((f) => [
        CONTENT_TYPES[f],
        { schema: z.string().meta({ contentMediaType: CONTENT_TYPES[f] }) },
      ]),
    ),
    'text/event-stream': {
      schema: z.string().describe('Lines `data: <SpeechSseEvent as JSON>`, no [DONE] sentinel.'),
    },
  },
  headers: {
    'x-model': { description: 'The model that spoke.' },
    'x-stream-format': { description: 'The stream format used: audio or sse.' },
  },
})
