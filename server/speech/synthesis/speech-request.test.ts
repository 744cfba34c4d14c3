import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { resolveSpeechRequest } from './speech-request.ts'

function rejection(body: unknown): ApiError {
  try {
    resolveSpeechRequest(body)
  } catch (err) {
    if (err instanceof ApiError) return err
    throw err
  }
  throw new Error('expected a rejection')
}

describe('speech request defaults (contract 2.1, 2.8)', () => {
  it('serves a request without model by svc-tts-mini-0.8 with Bella', () => {
    const r = resolveSpeechRequest({ input: 'Hi' })
    expect(r.model).toBe('svc-tts-mini-0.8')
    expect(r.voice).toEqual({ kind: 'builtin', id: 'Bella' })
    expect(r.responseFormat).toBe('mp3')
    expect(r.streamFormat).toBe('audio')
    expect(r.speed).toBe(1)
  })

  it('defaults the second generation to eleanor_somber_female_32 and the expressive preset', () => {
    const r = resolveSpeechRequest({ model: 'svc-tts-2-latest', input: 'Hi' })
    expect(r.voice).toEqual({ kind: 'builtin', id: 'eleanor_somber_female_32' })
    expect(r.decoding).toEqual({ temperature: 0.9, top_p: 0.9, top_k: 50, min_p: 0, max_new_tokens: null })
  })

  it('fills omitted and null decoding fields from the mode, keeping sent ones', () => {
    const r = resolveSpeechRequest({
      model: 'svc-tts-2-latest',
      input: 'Hi',
      mode: 'stable',
      top_p: null,
      top_k: 50.0,
    })
    expect(r.decoding).toEqual({ temperature: 0.8, top_p: 0.8, top_k: 50, min_p: 0, max_new_tokens: null })
  })
})

describe('speech request rejections', () => {
  it.each([
    ['temperature', 0.29],
    ['temperature', 2.01],
    ['top_p', 0.49],
    ['top_p', 1.01],
    ['top_k', -1],
    ['top_k', 201],
    ['top_k', 50.5],
    ['min_p', 0.51],
    ['max_new_tokens', 499],
    ['max_new_tokens', 12_001],
    ['temperature', '0.9'],
  ])('%s = %j gets the envelope with param and range', (field, value) => {
    const err = rejection({ model: 'svc-tts-2-latest', input: 'Hi', [field]: value })
    expect(err.status).toBe(400)
    expect(err.body('req_1')).toMatchObject({
      error: { code: 'invalid_request_error', param: field, message: expect.stringMatching(/from .* to /) },
      request_id: 'req_1',
    })
  })

  it.each([
    ['temperature', 0.3],
    ['temperature', 2.0],
    ['top_p', 0.5],
    ['top_k', 0],
    ['top_k', 200],
    ['min_p', 0.5],
    ['max_new_tokens', 500],
    ['max_new_tokens', 12_000],
  ])('%s = %j at the range edge is accepted', (field, value) => {
    expect(() =>
      resolveSpeechRequest({ model: 'svc-tts-2-latest', input: 'Hi', [field]: value }),
    ).not.toThrow()
  })

  it('accepts 40,000 characters and rejects 40,001 with a detail body', () => {
    expect(resolveSpeechRequest({ input: 'a'.repeat(40_000) }).input).toHaveLength(40_000)
    const err = rejection({ input: 'a'.repeat(40_001) })
    expect(err.body('r')).toMatchObject({ detail: expect.stringContaining('40000'), param: 'input' })
  })

  it.each([
    [{ input: '' }, 'input'],
    [{ input: 'Hi', voice: null }, 'voice'],
    [{ input: 'Hi', speed: 0.24 }, 'speed'],
    [{ input: 'Hi', speed: 4.01 }, 'speed'],
    [{ input: 'Hi', response_format: 'ogg' }, 'response_format'],
    [{ input: 'Hi', colour: 'blue' }, 'colour'],
    [{ model: 'svc-tts-2-latest', input: 'Hi', stream: false, stream_format: 'sse' }, 'stream'],
  ])('%j is rejected with a detail naming %s', (body, param) => {
    const err = rejection(body)
    expect(err.status).toBe(400)
    expect(err.body('r')).toMatchObject({ detail: expect.any(String), param })
  })

  it('rejects a second-generation voice on a 0.8 model and the reverse, case-sensitively', () => {
    expect(rejection({ model: 'svc-tts-mini-0.8', input: 'Hi', voice: 'bella_10' }).param).toBe('voice')
    expect(rejection({ model: 'svc-tts-2-latest', input: 'Hi', voice: 'Bella' }).param).toBe('voice')
    expect(rejection({ model: 'svc-tts-mini-0.8', input: 'Hi', voice: 'bella' }).param).toBe('voice')
  })

  it('rejects an unknown model in the envelope', () => {
    expect(rejection({ model: 'svc-tts-3', input: 'Hi' }).body('r')).toMatchObject({
      error: { param: 'model' },
    })
  })
})
