import swagger, { type FastifyDynamicSwaggerOptions } from '@fastify/swagger'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  clientSecretRequestSchema,
  clientSecretResponseSchema,
  consentListSchema,
  deletionSchema,
  detailErrorSchema,
  errorEnvelopeSchema,
  realtimeSessionConfigSchema,
  realtimeSessionSchema,
  savedVoiceSchema,
  speechRequestSchema,
  speechSseEventSchema,
  transcriptionJsonSchema,
  transcriptionSseEventSchema,
  transcriptionVerboseJsonSchema,
  voiceConsentSchema,
  voiceListSchema,
} from '../../schema/index.ts'
import { serviceHealthSchema } from '../../schema/service-routes.ts'
import { json, type ResponseDoc } from './route-docs.ts'

/**
 * The published contract: an OpenAPI 3.1 document that @fastify/swagger generates from the routes' own zod schemas
 * (converted by fastify-type-provider-zod), so a route cannot go undescribed or drift from its description. Served at
 * `GET /openapi.json`; a copy is checked in as docs/openapi.json (`npm run openapi`).
 */

/** Shapes published under components by these names; the SSE events too, which travel as text. */
const COMPONENTS: Record<string, z.ZodType> = {
  SpeechRequest: speechRequestSchema,
  SpeechSseEvent: speechSseEventSchema,
  VoiceList: voiceListSchema,
  SavedVoice: savedVoiceSchema,
  VoiceConsent: voiceConsentSchema,
  ConsentList: consentListSchema,
  Deletion: deletionSchema,
  ErrorEnvelope: errorEnvelopeSchema,
  DetailError: detailErrorSchema,
  TranscriptionJson: transcriptionJsonSchema,
  TranscriptionVerboseJson: transcriptionVerboseJsonSchema,
  TranscriptionSseEvent: transcriptionSseEventSchema,
  RealtimeSessionConfig: realtimeSessionConfigSchema,
  RealtimeSession: realtimeSessionSchema,
  ClientSecretRequest: clientSecretRequestSchema,
  ClientSecret: clientSecretResponseSchema,
  ServiceHealth: serviceHealthSchema,
}
// The converter names components from zod's global registry, where `.describe()` keeps descriptions too.
for (const [id, schema] of Object.entries(COMPONENTS)) {
  z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id })
}

declare module 'fastify' {
  interface FastifySchema {
    /** The request body may be left out (swagger marks every body required). */
    bodyOptional?: boolean
    bodyDescription?: string
  }
}

const isZod = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && '_zod' in value

type TransformInput = Parameters<typeof jsonSchemaTransform>[0]
type JsonSchema = Record<string, unknown>

/**
 * zod to JSON Schema through the type provider's transform, with what it leaves out: bodies per content type and
 * response headers, descriptions of responses without a body.
 */
function transform(input: TransformInput) {
  const schema = input.schema as (FastifySchema & Record<string, unknown>) | undefined
  if (!schema) return jsonSchemaTransform(input)
  const { body, response, bodyOptional, bodyDescription, hide, ...rest } = schema
  // @fastify/websocket hides its routes from the document; the sockets are part of the contract.
  if (hide && !(input.route as { websocket?: boolean }).websocket) return jsonSchemaTransform(input)
  const convert = (zod: z.ZodType, io: 'input' | 'output') => {
    const part = io === 'input' ? { body: zod } : { response: { 200: zod } }
    const out = jsonSchemaTransform({ ...input, schema: part }).schema as {
      body?: JsonSchema
      response?: Record<string, JsonSchema>
    }
    return (io === 'input' ? out.body : out.response?.[200]) as JsonSchema
  }
  const result = jsonSchemaTransform({ ...input, schema: rest })
  const out = result.schema as Record<string, unknown>
  if (out.hide) return result
  if (isZod(body)) out.body = convert(body, 'input')
  else if (body) {
    const content = (body as { content: Record<string, { schema: z.ZodType }> }).content
    out.body = {
      content: Object.fromEntries(
        Object.entries(content).map(([type, { schema }]) => [type, { schema: convert(schema, 'input') }]),
      ),
    }
  }
  if (body && (bodyOptional || bodyDescription)) {
    out['x-request-body'] = { required: !bodyOptional, description: bodyDescription }
  }
  if (response) {
    out.response = Object.fromEntries(
      Object.entries(response as Record<string, ResponseDoc | z.ZodType>).map(([status, doc]) => {
        if (isZod(doc)) return [status, convert(doc, 'output')]
        const converted: JsonSchema = { description: doc.description }
        if (doc.headers) {
          converted.headers = Object.fromEntries(
            Object.entries(doc.headers).map(([name, h]) => [
              name,
              { type: 'string', description: h.description },
            ]),
          )
        }
        if (doc.content) {
          converted.content = Object.fromEntries(
            Object.entries(doc.content).map(([type, { schema }]) => [
              type,
              { schema: convert(schema, 'output') },
            ]),
          )
        } else converted.type = 'null'
        return [status, converted]
      }),
    )
  }
  return result
}

type Doc = {
  paths: Record<string, Record<string, JsonSchema>>
  components: { schemas: Record<string, unknown> }
}

const REF = '#/components/schemas/'

/** Every `$ref` reachable from the paths, following references through components. */
function reachableRefs(doc: Doc): Set<string> {
  const found = new Set<string>()
  const queue: unknown[] = [doc.paths]
  while (queue.length > 0) {
    const node = queue.pop()
    if (Array.isArray(node)) queue.push(...node)
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && !found.has(value)) {
          found.add(value)
          queue.push(doc.components.schemas[value.slice(REF.length)])
        } else queue.push(value)
      }
    }
  }
  return found
}

/**
 * The converter publishes each component twice, as read (`XInput`) and as written (`X`). One name per shape is what
 * a client generator wants: a schema only ever read, or read and written alike, keeps its own name.
 */
function oneNamePerComponent(doc: Doc): Doc {
  const schemas = doc.components.schemas
  const reached = reachableRefs(doc)
  const renamed = new Map<string, string>()
  for (const id of Object.keys(COMPONENTS)) {
    const input = `${id}Input`
    if (!(input in schemas)) continue
    const inputUsed = reached.has(REF + input)
    const outputUsed = reached.has(REF + id)
    const alike = JSON.stringify(schemas[input]) === JSON.stringify(schemas[id])
    if (inputUsed && outputUsed && !alike) continue
    if (inputUsed) {
      schemas[id] = schemas[input]
      renamed.set(REF + input, REF + id)
    }
    delete schemas[input]
  }
  return JSON.parse(JSON.stringify(doc), (key, value) =>
    key === '$ref' && typeof value === 'string' ? (renamed.get(value) ?? value) : value,
  )
}

/** Moves what `transform` said of optional or described bodies into their request body objects. */
function requestBodies(doc: Doc): Doc {
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      const note = operation['x-request-body'] as { required: boolean; description?: string } | undefined
      if (!note) continue
      delete operation['x-request-body']
      const body = operation.requestBody as JsonSchema
      body.required = note.required
      if (note.description) body.description = note.description
    }
  }
  return doc
}

const options: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Speech Studio local speech service',
      version: '1.0.0',
      description:
        'Speech synthesis, voice catalog and text-input streaming. Decisions the specification leaves open: docs/api.md and docs/realtime-tts.md.',
    },
    servers: [{ url: 'http://127.0.0.1:8801' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  },
  transform,
  transformObject: (input) =>
    requestBodies(oneNamePerComponent(jsonSchemaTransformObject(input) as unknown as Doc)) as never,
}

/** The routes each service registered, as Fastify's `onRoute` saw them: what the document must describe. */
const registered = new WeakMap<FastifyInstance, Array<Pick<RouteOptions, 'method' | 'url' | 'schema'>>>()
export const registeredRoutes = (app: FastifyInstance) => registered.get(app) ?? []

/**
 * Registers the document's generator before any route, and `GET /openapi.json`. The schemas describe; they do not
 * validate (the handlers do, in the contract's error shapes), and responses are written as JSON.stringify writes them.
 */
export async function registerOpenApi(app: FastifyInstance) {
  const routes: Array<Pick<RouteOptions, 'method' | 'url' | 'schema'>> = []
  registered.set(app, routes)
  app.addHook('onRoute', ({ method, url, schema }) => {
    routes.push({ method, url, schema })
  })
  app.setValidatorCompiler(() => () => true)
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  await app.register(swagger, options)
  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'openApiDocument',
        summary: 'This document',
        tags: ['service'],
        security: [],
        response: { 200: json(z.looseObject({ openapi: z.string() }), 'The OpenAPI 3.1 document.') },
      },
    },
    async () => app.swagger(),
  )
}

/** `GET /health` (registered in app.ts): keyless, for load balancers. */
export const healthRouteSchema: FastifySchema = {
  operationId: 'health',
  summary: 'Whether this instance can take work: its database and limit store answer',
  tags: ['service'],
  security: [],
  response: {
    200: json(serviceHealthSchema, 'Healthy.'),
    503: json(
      serviceHealthSchema,
      'The database or the shared limits do not answer; new work would be refused.',
    ),
  },
}
