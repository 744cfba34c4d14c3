import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'

let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService()
})
afterAll(() => svc.close())

function speech(body: unknown, key: string | null = svc.apiKey, init: RequestInit = {}) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}

describe('authentication (contract 5, docs/api.md)', () => {
  it('answers a missing key with 401 and the envelope, with the request id in body and header', async () => {
    const res = await speech({ input: 'Hi', response_format: 'pcm' }, null)
    expect(res.status).toBe(401)
    const body = (await res.json()) as { error: { code: string; type: string }; request_id: string }
    expect(body.error).toMatchObject({ code: 'missing_api_key', type: 'authentication_error', param: null })
    expect(body.request_id).toMatch(/^req_[0-9a-f]{24}$/)
    expect(res.headers.get('x-request-id')).toBe(body.request_id)
  })

  it('answers an unknown or revoked key with 401 invalid_api_key', async () => {
    expect(
      ((await (await speech({ input: 'Hi' }, 'sk_unknown')).json()) as { error: { code: string } }).error
        .code,
    ).toBe('invalid_api_key')
    const { id, key } = await svc.service.keys.create({ kind: 'organization', org: 'test-org' })
    await svc.service.keys.revoke(id)
    expect((await speech({ input: 'Hi' }, key)).status).toBe(401)
  })

  it('answers a key without tts:generate with 403 insufficient_permissions', async () => {
    const { key } = await svc.service.keys.create({
      kind: 'organization',
      org: 'test-org',
      permissions: ['audio:transcribe'],
    })
    const res = await speech({ input: 'Hi', response_format: 'pcm' }, key)
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insufficient_permissions')
  })
})

describe('POST /v1/audio/speech', () => {
  it('streams SSE pcm in deltas of exactly 4,800 bytes, then done with usage', async () => {
    const input = 'Streaming speech arrives in small pieces while it is generated.'
    const res = await speech({ input, response_format: 'pcm', stream_format: 'sse' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(res.headers.get('x-model')).toBe('svc-tts-mini-0.8')
    expect(res.headers.get('x-stream-format')).toBe('sse')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.headers.get('x-request-id')).toMatch(/^req_/)
    const events = await readSse(res)
    const done = events.at(-1) as { type: string; usage: Record<string, number> }
    expect(done.type).toBe('speech.audio.done')
    const deltas = events.slice(0, -1).map((e) => {
      expect(e.type).toBe('speech.audio.delta')
      return Buffer.from(e.audio as string, 'base64')
    })
    expect(deltas.length).toBeGreaterThan(10)
    for (const d of deltas.slice(0, -1)) expect(d.length).toBe(4800)
    expect(deltas.at(-1)?.length).toBeLessThanOrEqual(4800)
    const bytes = deltas.reduce((n, d) => n + d.length, 0)
    expect(done.usage).toMatchObject({ input_characters: input.length })
    expect(done.usage.audio_seconds).toBeCloseTo(bytes / 2 / 24_000, 2)
    expect(events.some((e) => e.type === '[DONE]')).toBe(false)
  })

  it('reports zero tokens for the second-generation model', async () => {
    const res = await speech({
      model: 'svc-tts-2-latest',
      input: 'Hello.',
      response_format: 'pcm',
      stream_format: 'sse',
    })
    expect(res.headers.get('x-model')).toBe('svc-tts-2-latest')
    const done = (await readSse(res)).at(-1) as { usage: Record<string, number> }
    expect(done.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 })
  })

  it('streams raw pcm and a wav file with the contract content types', async () => {
    const pcm = await speech({ input: 'Hello there.', response_format: 'pcm' })
    expect(pcm.headers.get('content-type')).toBe('audio/L16; rate=24000; channels=1')
    expect(pcm.headers.get('x-stream-format')).toBe('audio')
    const pcmBytes = Buffer.from(await pcm.arrayBuffer())
    expect(pcmBytes.length % 2).toBe(0)
    expect(pcmBytes.length).toBeGreaterThan(24_000)

    const wav = await speech({ input: 'Hello there.', response_format: 'wav' })
    expect(wav.headers.get('content-type')).toBe('audio/wav')
    const wavBytes = Buffer.from(await wav.arrayBuffer())
    expect(wavBytes.toString('ascii', 0, 4)).toBe('RIFF')
    expect(wavBytes.readUInt32LE(24)).toBe(24_000)
  })

  it('returns a complete wav with exact sizes for stream: false', async () => {
    const res = await speech({
      model: 'svc-tts-2-latest',
      input: 'One file.',
      response_format: 'wav',
      stream: false,
    })
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44)
  })

  it('refuses a body over 256 KiB before reading it as speech', async () => {
    const res = await speech({ input: 'a', instructions: 'x'.repeat(256 * 1024) })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ detail: expect.any(String) })
  })

  it('answers malformed JSON and a wrong content type in the detail shape', async () => {
    const bad = await speech('{"input": ')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ detail: expect.any(String) })
    const text = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'text/plain' },
      body: 'Hello',
    })
    expect(text.status).toBe(415)
  })

  it('answers an unknown saved voice with 404 voice_not_found', async () => {
    const res = await speech({
      model: 'svc-tts-2-latest',
      input: 'Hi',
      voice: { id: `voice_${'0'.repeat(32)}` },
    })
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('voice_not_found')
  })

  it('stops synthesis when the client goes away, leaving no engine busy', async () => {
    const controller = new AbortController()
    const res = await speech(
      { input: 'This is a long text that takes a while to synthesize. '.repeat(40), response_format: 'pcm' },
      svc.apiKey,
      { signal: controller.signal },
    )
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    controller.abort()
    await expect.poll(() => svc.service.synthesizer.stats.busy, { timeout: 5000 }).toBe(0)
  })
})
