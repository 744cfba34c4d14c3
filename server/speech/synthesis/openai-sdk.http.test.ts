import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'

/** The official OpenAI SDK against the local service, for the fields the two share. */
let svc: RunningService
let client: OpenAI

beforeAll(async () => {
  svc = await startSpeechService()
  client = new OpenAI({ apiKey: svc.apiKey, baseURL: `${svc.baseUrl}/v1`, maxRetries: 0 })
})
afterAll(() => svc.close())

describe('openai audio.speech.create', () => {
  it('gets a wav file with model, input, voice, response_format and speed', async () => {
    const response = await client.audio.speech.create({
      model: 'svc-tts-mini-0.8',
      input: 'Hello from the official client.',
      voice: 'Bella',
      response_format: 'wav',
      speed: 1.25,
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(bytes.toString('ascii', 0, 4)).toBe('RIFF')
    expect(bytes.readUInt32LE(24)).toBe(24_000)
    expect(bytes.length).toBeGreaterThan(44 + 24_000)
  })

  it('streams mp3 by default', async () => {
    const response = await client.audio.speech.create({
      model: 'svc-tts-2-latest',
      input: 'Default format.',
      voice: 'english_40',
    })
    expect(response.headers.get('content-type')).toBe('audio/mpeg')
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(1000)
  })

  it('surfaces the service errors as SDK errors with status, code and request id', async () => {
    const bad = new OpenAI({ apiKey: 'sk_wrong', baseURL: `${svc.baseUrl}/v1`, maxRetries: 0 })
    const err = await bad.audio.speech
      .create({ model: 'svc-tts-mini-0.8', input: 'x', voice: 'Bella' })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OpenAI.APIError)
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key' })
    expect((err as InstanceType<typeof OpenAI.APIError>).requestID).toMatch(/^req_/)
  })
})
