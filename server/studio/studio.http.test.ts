import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, readSse, startSpeechService } from '../testing/service.ts'
import { createStudio } from './app.ts'

let svc: RunningService
let studio: FastifyInstance
let base: string

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await createStudio({ upstream: { baseUrl: svc.baseUrl, apiKey: svc.apiKey, kind: 'embedded' } })
  await studio.listen({ port: 0, host: '127.0.0.1' })
  const address = studio.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  base = `http://127.0.0.1:${address.port}`
})
afterAll(async () => {
  await studio.close()
  await svc.close()
})

const speechBody = JSON.stringify({
  input: 'Through the backend.',
  response_format: 'pcm',
  stream_format: 'sse',
})

describe('studio backend proxy', () => {
  it('forwards speech with its own key: the browser sends none and gets the stream', async () => {
    const res = await fetch(`${base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: speechBody,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    const raw = await res.clone().text()
    expect(raw).not.toContain(svc.apiKey)
    expect(JSON.stringify([...res.headers])).not.toContain(svc.apiKey)
    expect((await readSse(res)).at(-1)?.type).toBe('speech.audio.done')
  })

  it('replaces any Authorization a browser sends', async () => {
    const res = await fetch(`${base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk_someone_elses' },
      body: speechBody,
    })
    expect(res.status).toBe(200)
    await res.body?.cancel()
  })

  it('passes the service errors through in the spec shapes with their request ids', async () => {
    const res = await fetch(`${base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hi', model: 'svc-tts-2-latest', temperature: 5 }),
    })
    expect(res.status).toBe(400)
    const body = (await res.json()) as { error: { param: string }; request_id: string }
    expect(body.error.param).toBe('temperature')
    expect(res.headers.get('x-request-id')).toBe(body.request_id)
  })

  it('refuses upstream routes it does not forward', async () => {
    const res = await fetch(`${base}/api/v1/audio/voice_consents`)
    expect(res.status).toBe(404)
  })

  it('reports the upstream in its health endpoint without revealing the key or address', async () => {
    const res = await fetch(`${base}/api/health`)
    const text = await res.text()
    expect(JSON.parse(text)).toMatchObject({ upstream: { kind: 'embedded', reachable: true } })
    expect(text).not.toContain(svc.apiKey)
    expect(text).not.toContain(svc.baseUrl)
  })
})
