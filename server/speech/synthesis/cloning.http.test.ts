import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEspeakSynthesizer, type Synthesizer } from '../../engine/index.ts'
import { summarizePitch, trackPitch } from '../../engine/markup/pitch.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'

/** One-request cloning (contract 2.4, 4.2, 8) against the real service and engines. */

let synth: Synthesizer
let svc: RunningService
let lowPcm: Int16Array
let highPcm: Int16Array
let lowWav: Buffer
let highWav: Buffer

const SENTENCE = 'The weather today is bright and calm, and the river runs slowly past the old mill.'

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  lowPcm = await spokenPcm(synth, SENTENCE, 'marcus_deep_male_21')
  highPcm = await spokenPcm(synth, SENTENCE, 'pixie_06')
  lowWav = wavFile(lowPcm)
  highWav = wavFile(highPcm)
  svc = await startSpeechService({ synthesizer: synth })
}, 120_000)
afterAll(async () => {
  await svc?.close()
  await synth?.close()
})

const auth = () => ({ authorization: `Bearer ${svc.apiKey}` })

function cloningForm(fields: Record<string, string>, reference?: Buffer): FormData {
  const body = new FormData()
  for (const [k, v] of Object.entries({
    model: 'svc-tts-2-latest',
    input: 'Hello from a cloned voice.',
    ...fields,
  }))
    body.append(k, v)
  if (reference) body.append('reference_audio', new Blob([new Uint8Array(reference)]), 'ref.wav')
  return body
}

const clone = (fields: Record<string, string>, reference?: Buffer, base = svc) =>
  fetch(`${base.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${base.apiKey}` },
    body: cloningForm({ response_format: 'pcm', ...fields }, reference),
  })

async function errorOf(res: Response) {
  const body = (await res.json()) as {
    error?: { code: string; param: string | null }
    detail?: string
    param?: string
  }
  return {
    status: res.status,
    code: body.error?.code ?? null,
    param: body.error?.param ?? body.param ?? null,
  }
}

const medianHz = (pcm: Int16Array) =>
  summarizePitch(trackPitch(pcm, 24_000, { minHz: 55, maxHz: 500 })).medianHz
const pcmOf = async (res: Response) => new Int16Array(await res.arrayBuffer())

describe('one-request cloning, multipart', () => {
  it('speaks in a voice that moves toward the reference speaker', async () => {
    const low = await clone({}, lowWav)
    const high = await clone({}, highWav)
    expect(low.status).toBe(200)
    expect(low.headers.get('x-model')).toBe('svc-tts-2-latest')
    const [lowHz, highHz] = [medianHz(await pcmOf(low)), medianHz(await pcmOf(high))]
    const [refLow, refHigh] = [medianHz(lowPcm), medianHz(highPcm)]
    // Each clone lands within 3 semitones of its reference's median pitch.
    expect(Math.abs(12 * Math.log2(lowHz / refLow))).toBeLessThan(3)
    expect(Math.abs(12 * Math.log2(highHz / refHigh))).toBeLessThan(3)
  }, 60_000)

  it('is never saved or listed', async () => {
    await clone({}, lowWav)
    expect(await svc.service.voices.store.artifactIds('voices')).toEqual([])
    const res = await fetch(`${svc.baseUrl}/v1/voices?model=svc-tts-2-latest`, { headers: auth() })
    const { data } = (await res.json()) as { data: { type: string }[] }
    expect(data.some((v) => v.type === 'saved')).toBe(false)
  }, 60_000)

  it('reads numeric fields as JSON numbers', async () => {
    expect((await clone({ top_k: '50.0', speed: '1.5', temperature: '0.9' }, lowWav)).status).toBe(200)
    expect(await errorOf(await clone({ top_k: 'fifty' }, lowWav))).toMatchObject({
      status: 400,
      code: 'invalid_request_error',
      param: 'top_k',
    })
    expect(await errorOf(await clone({ top_k: '50.5' }, lowWav))).toMatchObject({
      status: 400,
      param: 'top_k',
    })
  }, 60_000)

  it('refuses a missing reference, unaccepted fields and another model with 400', async () => {
    expect(await errorOf(await clone({}))).toMatchObject({ status: 400, param: 'reference_audio' })
    for (const field of ['voice', 'stream', 'consent']) {
      expect(await errorOf(await clone({ [field]: 'x' }, lowWav))).toMatchObject({
        status: 400,
        param: field,
      })
    }
    expect(await errorOf(await clone({ model: 'svc-tts-mini-0.8' }, lowWav))).toMatchObject({
      status: 400,
      param: 'model',
    })
  }, 60_000)

  it('limits the reference to 10 MiB', async () => {
    const atLimit = Buffer.alloc(10 * 1024 * 1024)
    wavFile(new Int16Array(0)).copy(atLimit)
    atLimit.writeUInt32LE(atLimit.length - 8, 4)
    atLimit.writeUInt32LE(atLimit.length - 44, 40)
    // Exactly 10 MiB passes the size limit (and is then refused as audio: 218 s of silence is too long).
    expect(await errorOf(await clone({}, atLimit))).toMatchObject({ status: 400, code: 'invalid_audio' })
    const over = Buffer.concat([atLimit, Buffer.alloc(1)])
    expect(await errorOf(await clone({}, over))).toMatchObject({ status: 413, param: 'reference_audio' })
  }, 60_000)

  it('holds a cloning slot for the whole request: a second clone meets a full queue', async () => {
    const tiny = await startSpeechService({
      synthesizer: synth,
      limits: { cloningConcurrency: 1, cloningQueue: 0 },
    })
    try {
      // Long enough that its audio cannot all sit in socket buffers: unread, the stream (and its slot) stays open
      // however fast synthesis is.
      const long = { input: Array.from({ length: 40 }, () => SENTENCE).join(' ') }
      const first = await clone(long, lowWav, tiny)
      expect(first.status).toBe(200)
      const second = await clone({}, lowWav, tiny)
      expect(await errorOf(second)).toMatchObject({ status: 429, code: 'custom_voice_creation_busy' })
      await first.arrayBuffer()
      await expect.poll(async () => (await clone({}, lowWav, tiny)).status, { timeout: 10_000 }).toBe(200)
    } finally {
      await tiny.close()
    }
  }, 60_000)
})

describe('one-request cloning, JSON', () => {
  const speak = (voice: unknown) =>
    fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-tts-2-latest', input: 'Hi there.', voice, response_format: 'pcm' }),
    })
  const small = () => wavFile(lowPcm.subarray(0, 48_000))

  it('clones from a Base64 reference', async () => {
    const res = await speak({ reference_audio: { data: small().toString('base64'), format: 'wav' } })
    expect(res.status).toBe(200)
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(4800)
  }, 60_000)

  it('refuses bad Base64, an unknown format, and the 0.8 models', async () => {
    expect(await errorOf(await speak({ reference_audio: { data: '@@@', format: 'wav' } }))).toMatchObject({
      status: 400,
      param: 'voice.reference_audio.data',
    })
    expect(
      await errorOf(await speak({ reference_audio: { data: small().toString('base64'), format: 'xyz' } })),
    ).toMatchObject({ status: 400, param: 'voice.reference_audio.format' })
  }, 60_000)
})
