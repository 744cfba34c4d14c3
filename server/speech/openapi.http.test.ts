import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  clientSecretResponseSchema,
  consentListSchema,
  detailErrorSchema,
  errorEnvelopeSchema,
  voiceListSchema,
} from '../../schema/index.ts'
import { serviceHealthSchema } from '../../schema/service-routes.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'
import { registeredRoutes } from './openapi.ts'

let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService()
})
afterAll(() => svc.close())

describe('the published OpenAPI document', () => {
  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    const res = await fetch(`${svc.baseUrl}/openapi.json`)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as { openapi: string }
    expect(doc.openapi).toBe('3.1.0')
    const result = await new Validator().validate(doc as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it('is the copy checked in as docs/openapi.json (run `npm run openapi` after changing a schema)', async () => {
    const served = await (await fetch(`${svc.baseUrl}/openapi.json`)).json()
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(served)
  })

  it('describes the speech body with the limits the service enforces', async () => {
    const doc = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: { SpeechRequest: { properties: Record<string, Record<string, unknown>> } } }
    }
    const props = doc.components.schemas.SpeechRequest.properties
    expect(props.input).toMatchObject({ minLength: 1, maxLength: 40_000 })
    expect(props.speed).toMatchObject({ minimum: 0.25, maximum: 4 })
    expect(JSON.stringify(props.temperature)).toContain('"maximum":2')
  })

  it('describes every route the service registered, each from its own schema, and nothing else', async () => {
    const doc = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as OpenApi
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)),
    )
    const routes = registeredRoutes(svc.service.app).flatMap(({ method, url }) =>
      (Array.isArray(method) ? method : [method]).map(
        (m) => `${m.toLowerCase()} ${url.replace(/:([A-Za-z_]+)/g, '{$1}')}`,
      ),
    )
    // Fastify answers HEAD beside every GET on its own; the document lists the GET.
    const expected = routes.filter((r) => !(r.startsWith('head ') && routes.includes(`get ${r.slice(5)}`)))
    expect(expected.length).toBeGreaterThanOrEqual(18)
    expect([...documented].sort()).toEqual([...new Set(expected)].sort())
    for (const route of expected) {
      const [method, path] = route.split(' ') as [string, string]
      const op = doc.paths[path]?.[method]
      // A route without a schema would still be listed, with only swagger's placeholder response.
      expect(op?.operationId, route).toBeTruthy()
      expect(op?.summary, route).toBeTruthy()
      for (const [status, response] of Object.entries(op?.responses ?? {})) {
        expect(response.description, `${route} ${status}`).not.toBe('Default Response')
      }
    }
  })

  it('keeps the security scheme, the error shapes behind every key and the SSE event schemas', async () => {
    const doc = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as OpenApi
    expect(doc.components.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'bearer' } })
    expect(doc.security).toEqual([{ bearer: [] }])
    for (const name of ['ErrorEnvelope', 'DetailError', 'SpeechSseEvent', 'TranscriptionSseEvent']) {
      expect(doc.components.schemas[name], name).toBeDefined()
    }
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (op.security?.length === 0) continue
        const unauthorized = op.responses['401']?.content?.['application/json']?.schema
        expect(unauthorized, `${method} ${path}`).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' })
      }
    }
    const speech = doc.paths['/v1/audio/speech']?.post
    expect(Object.keys(speech?.requestBody?.content ?? {})).toEqual([
      'application/json',
      'multipart/form-data',
    ])
    expect(JSON.stringify(speech?.requestBody?.content?.['multipart/form-data'])).toContain(
      '"format":"binary"',
    )
    expect(Object.keys(speech?.responses['200']?.content ?? {})).toContain('text/event-stream')
    expect(Object.keys(speech?.responses['200']?.content ?? {})).toContain('audio/mpeg')
    expect(doc.paths['/v1/realtime/client_secrets']?.post?.requestBody?.required).toBe(false)
  })

  it('describes without validating: a bad body is still answered by the handler, in the contract shape', async () => {
    const auth = { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' }
    const speech = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ input: '', voice: 'Bella' }),
    })
    expect(speech.status).toBe(400)
    expect(await speech.json()).toMatchObject({ detail: expect.any(String), param: 'input' })
    const secret = await fetch(`${svc.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ expires_after: { seconds: 5 } }),
    })
    expect(secret.status).toBe(400)
    expect(await secret.json()).toMatchObject({ param: 'expires_after.seconds' })
    const consent = await fetch(`${svc.baseUrl}/v1/audio/voice_consents?limit=0`, { headers: auth })
    expect(consent.status).toBe(400)
    expect(await consent.json()).toMatchObject({ param: 'limit' })
  })
})

describe('the documented response shapes', () => {
  // Responses are published as written (`additionalProperties: false`); zod drops unknown keys, so a body equal to
  // its own parse has no field the document does not name.
  const exactly = async (schema: z.ZodType, res: Response) => {
    const body = await res.json()
    expect(schema.parse(body)).toEqual(body)
  }

  it('are what the service sends, nothing more', async () => {
    const headers = { authorization: `Bearer ${svc.apiKey}` }
    await exactly(serviceHealthSchema, await fetch(`${svc.baseUrl}/health`))
    await exactly(voiceListSchema, await fetch(`${svc.baseUrl}/v1/voices`, { headers }))
    await exactly(consentListSchema, await fetch(`${svc.baseUrl}/v1/audio/voice_consents`, { headers }))
    await exactly(
      clientSecretResponseSchema,
      await fetch(`${svc.baseUrl}/v1/realtime/client_secrets`, { method: 'POST', headers }),
    )
    await exactly(errorEnvelopeSchema, await fetch(`${svc.baseUrl}/v1/voices`))
    await exactly(detailErrorSchema, await fetch(`${svc.baseUrl}/v1/voices?model=nope`, { headers }))
    await exactly(detailErrorSchema, await fetch(`${svc.baseUrl}/v1/nothing-here`))
  })
})

interface Operation {
  operationId?: string
  summary?: string
  security?: unknown[]
  requestBody?: { required?: boolean; content?: Record<string, unknown> }
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>
  security: unknown
  components: { schemas: Record<string, unknown>; securitySchemes: unknown }
}
