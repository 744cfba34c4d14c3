import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { concat } from '../../core/concat.ts'
import { MAX_REFERENCE_BYTES } from '../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../../server/engine/index.ts'
import { summarizePitch, trackPitch } from '../../server/engine/markup/pitch.ts'
import { type RunningService, startSpeechService } from '../../server/testing/service.ts'
import { spokenPcm, wavFile } from '../../server/testing/spoken-audio.ts'
import { type RunningStudio, startStudio } from '../../server/testing/studio.ts'
import { type CapacityWait, withCapacityRetry } from './capacity-retry.ts'
import { explainError } from './error-text.ts'
import { ApiRequestError, setCsrfTokenSource } from './http.ts'
import { type ReferenceClip, streamSpeechWithReference } from './speech.ts'

/**
 * One-request cloning from the browser client, through the real studio backend to the real service: the multipart
 * form of contract 4.2 passes the backend's proxy, and the answer streams back as SSE PCM.
 */

let synth: Synthesizer
let svc: RunningService
let studio: RunningStudio
let low: ReferenceClip
let high: ReferenceClip

const SENTENCE = 'The weather today is bright and calm, and the river runs slowly past the old mill.'
const realFetch = globalThis.fetch

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  const clip = async (voice: string): Promise<ReferenceClip> => ({
    blob: new Blob([new Uint8Array(wavFile(await spokenPcm(synth, SENTENCE, voice)))], { type: 'audio/wav' }),
    filename: `${voice}.wav`,
    transcript: SENTENCE,
  })
  low = await clip('marcus_deep_male_21')
  high = await clip('pixie_06')
  // One generation at a time and no waiting in line, so that a held slot refuses the next request at once.
  svc = await startSpeechService({ synthesizer: synth, limits: { ttsPerOwner: 1, ttsWaiters: 0 } })
  studio = await startStudio(svc)
}, 120_000)
afterAll(async () => {
  await studio?.close()
  await svc?.close()
  await synth?.close()
})
afterEach(() => {
  vi.unstubAllGlobals()
  setCsrfTokenSource(() => null)
})

/** The browser's side of the session: same-origin `/api` paths and the session cookie, which Node does not keep. */
async function signInAs(role: 'designer' | 'reviewer') {
  const headers = await studio.signInAs(role)
  vi.stubGlobal('fetch', (input: string | URL, init: RequestInit = {}) => {
    const withCookie = new Headers(init.headers)
    withCookie.set('cookie', headers.cookie)
    return realFetch(new URL(input, studio.base), { ...init, headers: withCookie })
  })
  setCsrfTokenSource(() => headers['x-csrf-token'])
}

async function speakWith(
  reference: ReferenceClip,
  fields: { input: string; temperature?: number; top_k?: number },
) {
  const pieces: Int16Array[] = []
  const result = await streamSpeechWithReference(fields, reference, { onAudio: (pcm) => pieces.push(pcm) })
  return { ...result, pcm: concat(pieces, Int16Array), pieces: pieces.length }
}

const medianHz = (pcm: Int16Array) =>
  summarizePitch(trackPitch(pcm, 24_000, { minHz: 55, maxHz: 500 })).medianHz

/** Holds the organization's only generation slot with a stream straight at the service until released. */
async function holdSlot() {
  const abort = new AbortController()
  const res = await realFetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'A long text. '.repeat(400), voice: 'Bella', response_format: 'pcm' }),
    signal: abort.signal,
  })
  expect(res.status).toBe(200)
  return () => abort.abort()
}

describe('streamSpeechWithReference through the studio', () => {
  it('streams the line in the voice of the reference clip', async () => {
    await signInAs('designer')
    const fields = { input: 'Hello from the script page.', temperature: 0.8, top_k: 50 }
    const fromLow = await speakWith(low, fields)
    const fromHigh = await speakWith(high, fields)
    expect(fromLow.requestId).toMatch(/^req_/)
    expect(fromLow.pieces).toBeGreaterThan(3)
    expect(fromLow.usage.audio_seconds).toBeCloseTo(fromLow.pcm.length / 24_000, 2)
    // The reference reached the service: each take follows its clip's speaker, three semitones apart at least.
    const [lowHz, highHz] = [medianHz(fromLow.pcm), medianHz(fromHigh.pcm)]
    expect(12 * Math.log2(highHz / lowHz)).toBeGreaterThan(3)
  }, 90_000)

  it("rejects with the service's refusal, which explainError puts in plain words", async () => {
    await signInAs('designer')
    const range = await speakWith(low, { input: 'Too hot.', temperature: 5 }).catch((e: unknown) => e)
    expect(range).toBeInstanceOf(ApiRequestError)
    expect(range).toMatchObject({ status: 400, code: 'invalid_request_error' })
    expect(explainError(range).title).toMatch(/^Temperature is out of range/)

    const oversized = {
      blob: new Blob([await low.blob.arrayBuffer(), new Uint8Array(MAX_REFERENCE_BYTES)]),
      filename: 'big.wav',
    }
    const tooLarge = await speakWith(oversized, { input: 'Too big.' }).catch((e: unknown) => e)
    expect(tooLarge).toMatchObject({ status: 413 })
    expect(explainError(tooLarge).title).toBe('The reference clip is larger than 10 MiB.')
  }, 60_000)

  it('is refused for a role that may not generate speech', async () => {
    await signInAs('reviewer')
    const refused = await speakWith(low, { input: 'Not mine to say.' }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ status: 403 })
    expect(explainError(refused).title).toBe('Your role may not do this.')
  }, 30_000)

  it('is retried by the browser after a capacity refusal, which the backend cannot replay', async () => {
    await signInAs('designer')
    const release = await holdSlot()
    const waits: CapacityWait[] = []
    let tries = 0
    try {
      const take = withCapacityRetry(
        () => {
          tries++
          return speakWith(low, { input: 'Once the slot is free.' })
        },
        {
          onWait: (wait) => {
            waits.push(wait)
            release()
          },
        },
      )
      const result = await take
      expect(result.pcm.length).toBeGreaterThan(24_000 / 2)
    } finally {
      release()
    }
    expect(tries).toBe(2)
    expect(waits[0]).toMatchObject({ attempt: 2, maxAttempts: 3, reason: expect.stringMatching(/busy/) })
    expect(waits.at(-1)?.secondsLeft).toBe(0)
  }, 60_000)
})
