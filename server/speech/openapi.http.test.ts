import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../testing/service.ts'

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
})
