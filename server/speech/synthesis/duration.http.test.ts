import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'

/** The request duration limit (contract 8: 30 minutes), shortened here so a test can reach it. */
let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService({ limits: { speechRequestMs: 1500 } })
})
afterAll(() => svc.close())

describe('speech request duration limit', () => {
  it('cuts a stream that runs past the limit: no completion marker, slot and engine freed', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
      body: JSON.stringify({
        input: 'This text is far too long to finish within the limit. '.repeat(300),
        response_format: 'pcm',
        stream_format: 'sse',
      }),
    })
    expect(res.status).toBe(200)
    // Read slowly, as a client on a thin line would, so the stream is still running when the limit falls.
    let text = ''
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    const cut = await (async () => {
      for (;;) {
        const next = await reader.read().catch(() => null)
        if (!next || next.done) return true
        text += decoder.decode(next.value, { stream: true })
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    expect(cut).toBe(true)
    expect(text).toContain('speech.audio.delta')
    expect(text).not.toContain('speech.audio.done')
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => svc.service.synthesizer.stats.busy, { timeout: 10_000 }).toBe(0)
  })

  it('leaves a request that finishes in time alone', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
      body: JSON.stringify({ input: 'Short.', response_format: 'pcm', stream_format: 'sse' }),
    })
    expect(await res.text()).toContain('speech.audio.done')
  })
})
