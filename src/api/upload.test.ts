import { afterEach, describe, expect, it, vi } from 'vitest'
import { createConsent } from './consents.ts'
import { ApiRequestError, apiUpload, apiUploadStream, onUnauthorized, setCsrfTokenSource } from './http.ts'
import { createVoice } from './voices.ts'

/** A stand-in XMLHttpRequest: records what was sent, reports progress, then answers as told. */
class FakeXhr {
  static last: FakeXhr | null = null
  static answer = { status: 200, body: '{}', headers: 'content-type: application/json' }
  method = ''
  url = ''
  headers: Record<string, string> = {}
  body: FormData | null = null
  status = 0
  responseText = ''
  private listeners: Record<string, Array<() => void>> = {}
  readonly upload = {
    listeners: [] as Array<(e: { lengthComputable: boolean; loaded: number; total: number }) => void>,
    addEventListener(
      _type: string,
      fn: (e: { lengthComputable: boolean; loaded: number; total: number }) => void,
    ) {
      this.listeners.push(fn)
    },
  }

  constructor() {
    FakeXhr.last = this
  }
  open(method: string, url: string) {
    this.method = method
    this.url = url
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value
  }
  addEventListener(type: string, fn: () => void) {
    this.listeners[type] = [...(this.listeners[type] ?? []), fn]
  }
  getAllResponseHeaders() {
    return FakeXhr.answer.headers
  }
  abort() {
    for (const fn of this.listeners.abort ?? []) fn()
  }
  send(body: FormData) {
    this.body = body
    queueMicrotask(() => {
      for (const fn of this.upload.listeners) fn({ lengthComputable: true, loaded: 50, total: 100 })
      for (const fn of this.upload.listeners) fn({ lengthComputable: true, loaded: 100, total: 100 })
      this.status = FakeXhr.answer.status
      this.responseText = FakeXhr.answer.body
      for (const fn of this.listeners.load ?? []) fn()
    })
  }
}

function answer(status: number, body: unknown, headers = 'content-type: application/json') {
  FakeXhr.answer = { status, body: JSON.stringify(body), headers }
}

afterEach(() => {
  vi.unstubAllGlobals()
  setCsrfTokenSource(() => null)
  FakeXhr.last = null
})

describe('apiUpload', () => {
  it('posts the form with the CSRF header, reports progress and parses the answer', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    setCsrfTokenSource(() => 'tok-9')
    answer(200, { ok: true })
    const progress: number[] = []
    const form = new FormData()
    form.set('name', 'x')
    const result = await apiUpload('/v1/audio/voices', form, (b) => b as { ok: boolean }, {
      onProgress: (p) => progress.push(p.loaded / p.total),
    })
    expect(result).toEqual({ ok: true })
    expect(FakeXhr.last?.method).toBe('POST')
    expect(FakeXhr.last?.url).toBe('/api/v1/audio/voices')
    expect(FakeXhr.last?.headers['x-csrf-token']).toBe('tok-9')
    expect(progress).toEqual([0.5, 1])
  })

  it('rejects with the service error, its code and Retry-After', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    answer(
      429,
      {
        error: {
          message: 'Busy.',
          type: 'rate_limit_error',
          param: null,
          code: 'custom_voice_creation_busy',
        },
        request_id: 'req_2',
      },
      'content-type: application/json\r\nretry-after: 5\r\nx-request-id: req_2',
    )
    const err = await apiUpload('/v1/audio/voices', new FormData(), (b) => b).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiRequestError)
    expect(err).toMatchObject({ status: 429, code: 'custom_voice_creation_busy', retryAfterSeconds: 5 })
    expect((err as ApiRequestError).requestId).toBe('req_2')
  })

  it('tells listeners about a 401', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    answer(401, {
      error: { message: 'Not signed in.', type: 'authentication_error', param: null, code: 'not_signed_in' },
      request_id: 'req-1',
    })
    const seen: string[] = []
    const off = onUnauthorized((path) => seen.push(path))
    await apiUpload('/v1/audio/voice_consents', new FormData(), (b) => b).catch(() => undefined)
    off()
    expect(seen).toEqual(['/v1/audio/voice_consents'])
  })
})

describe('apiUploadStream', () => {
  it('hands on the text of the answer and resolves with its headers', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    setCsrfTokenSource(() => 'tok')
    FakeXhr.answer = { status: 200, body: 'data: {"type":"x"}\n\n', headers: 'x-transcript-id: tr_1' }
    const text: string[] = []
    const progress: number[] = []
    const headers = await apiUploadStream('/transcripts', new FormData(), {
      onText: (chunk) => text.push(chunk),
      onProgress: (p) => progress.push(p.loaded),
    })
    expect(headers.get('x-transcript-id')).toBe('tr_1')
    expect(text.join('')).toBe('data: {"type":"x"}\n\n')
    expect(progress).toEqual([50, 100])
    expect(FakeXhr.last?.headers['x-csrf-token']).toBe('tok')
  })

  it('rejects a refusal as ApiRequestError, tells listeners about a 401 and hands on no text', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    answer(401, {
      error: { message: 'Not signed in.', type: 'authentication_error', param: null, code: 'not_signed_in' },
      request_id: 'req-1',
    })
    const seen: string[] = []
    const text: string[] = []
    const off = onUnauthorized((path) => seen.push(path))
    const err = await apiUploadStream('/transcripts', new FormData(), { onText: (c) => text.push(c) }).catch(
      (e: unknown) => e,
    )
    off()
    expect(err).toMatchObject({ status: 401 })
    expect(err).toBeInstanceOf(ApiRequestError)
    expect(seen).toEqual(['/transcripts'])
    expect(text).toEqual([])
  })

  it('rejects at once, sending nothing, when its signal was already aborted', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    const controller = new AbortController()
    controller.abort(new DOMException('stop', 'AbortError'))
    const err = await apiUploadStream('/transcripts', new FormData(), { signal: controller.signal }).catch(
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ name: 'AbortError' })
    expect(FakeXhr.last).toBeNull()
  })
})

describe('consent and voice uploads', () => {
  it('sends the consent fields the service expects, the transcript only when given', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    answer(200, {
      id: `cons_${'a'.repeat(32)}`,
      object: 'audio.voice_consent',
      name: 'Ada',
      language: 'en-US',
      created_at: 1,
    })
    const recording = {
      blob: new Blob([new Uint8Array(4)], { type: 'audio/webm' }),
      filename: 'consent.webm',
    }
    const consent = await createConsent({ name: 'Ada', language: 'en-US', recording })
    expect(consent.name).toBe('Ada')
    const sent = FakeXhr.last?.body as FormData
    expect(sent.get('name')).toBe('Ada')
    expect(sent.get('language')).toBe('en-US')
    expect(sent.has('consent_transcript')).toBe(false)
    expect((sent.get('recording') as File).name).toBe('consent.webm')
  })

  it('binds a voice to a consent only when one is chosen', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr)
    answer(200, { id: `voice_${'b'.repeat(32)}`, object: 'audio.voice', name: 'V', created_at: 1 })
    const sample = { blob: new Blob([new Uint8Array(4)]), filename: 'sample.wav' }
    await createVoice({ name: 'V', sample, consent: `cons_${'a'.repeat(32)}`, transcript: 'Hello there.' })
    let sent = FakeXhr.last?.body as FormData
    expect(sent.get('consent')).toBe(`cons_${'a'.repeat(32)}`)
    expect(sent.get('reference_transcript')).toBe('Hello there.')
    await createVoice({ name: 'V', sample, consent: null })
    sent = FakeXhr.last?.body as FormData
    expect(sent.has('consent')).toBe(false)
    expect((sent.get('audio_sample') as File).name).toBe('sample.wav')
  })
})
