import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'

/**
 * Server-Timing through the real backend and service: a proxied speech answer names the backend's time before the
 * upstream request, the upstream's time to headers and the service's own time to the audio starting, so the browser
 * can break its time to first audio into stages (bench:studio prints them).
 */

let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
}, 120_000)

afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

/** `name;dur=12.3, …` → { name: 12.3 } */
function entries(header: string | null): Record<string, number> {
  return Object.fromEntries(
    (header ?? '')
      .split(',')
      .map((part) => /^\s*([\w-]+);dur=([\d.]+)\s*$/.exec(part))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], Number(m[2])]),
  )
}

describe('Server-Timing on a streamed speech answer', () => {
  it('names the studio, the upstream and the service, each a time within the whole', async () => {
    const started = performance.now()
    const res = await fetch(`${studio.base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { ...designer, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'svc-tts-2-latest',
        voice: 'narrator_02',
        input: 'Timing, stage by stage.',
        response_format: 'pcm',
        stream_format: 'sse',
      }),
    })
    const headersAfter = performance.now() - started
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    const timing = entries(res.headers.get('server-timing'))
    expect(Object.keys(timing).sort()).toEqual(['service', 'studio', 'upstream'])
    for (const value of Object.values(timing)) expect(value).toBeGreaterThanOrEqual(0)
    // The service's part lies within the upstream's, and both within what the client waited for the headers.
    expect(timing.service).toBeLessThanOrEqual(timing.upstream as number)
    expect((timing.studio as number) + (timing.upstream as number)).toBeLessThanOrEqual(headersAfter)
  })

  it('the service names its own time on a direct request', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'svc-tts-2-latest',
        voice: 'narrator_02',
        input: 'Direct.',
        response_format: 'pcm',
      }),
    })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
    expect(Object.keys(entries(res.headers.get('server-timing')))).toEqual(['service'])
  })
})
