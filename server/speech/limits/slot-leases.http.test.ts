import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEspeakSynthesizer, type SynthesisJob, type Synthesizer } from '../../engine/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { testSharedLimits } from '../../testing/shared-limits.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'
import { connectWs } from '../../testing/ws-client.ts'

/**
 * Slot leases (lease.ts) over real HTTP and WebSocket: a client that leaves while its request is being prepared — a
 * one-request clone, a saved voice prepared again for a new engine — must not keep the slot it comes to hold. Voice
 * preparation renders through the synthesizer, so a gate on the synthesizer holds a request mid-preparation for as
 * long as the test needs: the client leaves exactly then, and the gate opens after the service has seen it go.
 */

interface Gate {
  /** Resolves when the next synthesis reaches the gate. */
  reached: Promise<void>
  open(): void
}

/** The real eSpeak synthesizer, with a gate that can stop its next job until the test opens it. */
function gatedSynthesizer(inner: Synthesizer) {
  let armed: { reach(): void; opened: Promise<void> } | null = null
  const synthesizer: Synthesizer = {
    sampleRate: inner.sampleRate,
    get stats() {
      return inner.stats
    },
    close: () => inner.close(),
    async *synthesize(job: SynthesisJob) {
      const gate = armed
      armed = null
      if (gate) {
        gate.reach()
        await gate.opened
      }
      yield* inner.synthesize(job)
    },
  }
  const arm = (): Gate => {
    let reach = () => {}
    let open = () => {}
    const reached = new Promise<void>((resolve) => {
      reach = resolve
    })
    const opened = new Promise<void>((resolve) => {
      open = resolve
    })
    armed = { reach, opened }
    return { reached, open }
  }
  return { synthesizer, arm }
}

const SENTENCE = 'The weather today is bright and calm, and the river runs slowly past the old mill.'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Long enough for the service to handle the close of a connection the test destroyed. */
const CLOSE_SEEN_MS = 300

let synth: Synthesizer
let gated: ReturnType<typeof gatedSynthesizer>
let svc: RunningService
let sampleWav: Buffer
let otherOrgKey: string
let savedVoiceId: string
let ownerId: string

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  sampleWav = wavFile(await spokenPcm(synth, SENTENCE, 'english_40'))
  gated = gatedSynthesizer(synth)
  svc = await startSpeechService({
    synthesizer: gated.synthesizer,
    // One TTS slot and one cloning slot: a leaked slot blocks the next request outright. The cloning wait is short
    // so that a leak shows as a 429 in seconds, not after the two minutes of production.
    limits: { ttsPerOwner: 1, ttsWaiters: 0, cloningConcurrency: 1, cloningQueue: 2, cloningWaitMs: 3000 },
    // In the postgres project the slots are leases in Redis: a leak there blocks the next request just the same.
    sharedLimits: testSharedLimits(),
  })
  otherOrgKey = (await svc.service.keys.create({ kind: 'organization', org: 'other-org' })).key
  ownerId = (await svc.service.keys.authenticate(svc.apiKey))?.ownerId as string
  const created = await createVoice(svc.apiKey)
  expect(created.status).toBe(200)
  savedVoiceId = ((await created.json()) as { id: string }).id
}, 120_000)
afterAll(async () => {
  await svc?.close()
  await synth?.close()
})

function createVoice(key: string) {
  const body = new FormData()
  body.append('name', 'Narrator')
  body.append('reference_transcript', SENTENCE)
  body.append('audio_sample', new Blob([new Uint8Array(sampleWav)]), 'sample.wav')
  return fetch(`${svc.baseUrl}/v1/audio/voices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body,
  })
}

function speech(body: Record<string, unknown>) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: 'Hi.', response_format: 'pcm', ...body }),
  })
}

/** Sends a whole request over its own connection and returns it, to be destroyed by the test. */
function sendRaw(path: string, headers: Record<string, string>, body: Buffer): http.ClientRequest {
  const url = new URL(svc.baseUrl)
  const req = http.request({
    host: url.hostname,
    port: url.port,
    method: 'POST',
    path,
    headers: { ...headers, authorization: `Bearer ${svc.apiKey}`, 'content-length': String(body.length) },
    agent: false,
  })
  req.on('error', () => {})
  req.end(body)
  return req
}

/** Marks the saved voice as prepared by an older engine, so its next use prepares it again (contract 3). */
async function makeStale() {
  const voice = await svc.service.voices.store.getVoice(ownerId, savedVoiceId)
  if (!voice) throw new Error('the saved voice is gone')
  await svc.service.voices.store.updatePreparation(savedVoiceId, 'an-older-engine', voice.params)
}

const preparedAgain = async () =>
  (await svc.service.voices.store.getVoice(ownerId, savedVoiceId))?.preparedVersion ===
  svc.service.voices.preparationVersion

describe('slot leases: a client that leaves mid-preparation gives every slot back', () => {
  it('an aborted one-request clone does not block voice creation for another organization', async () => {
    const form = new FormData()
    form.append('model', 'svc-tts-2-latest')
    form.append('input', 'Hello from a cloned voice.')
    form.append('response_format', 'pcm')
    form.append('reference_transcript', SENTENCE)
    form.append('reference_audio', new Blob([new Uint8Array(sampleWav)]), 'ref.wav')
    const encoded = new Request('http://localhost/', { method: 'POST', body: form })
    const gate = gated.arm()
    const req = sendRaw(
      '/v1/audio/speech',
      { 'content-type': encoded.headers.get('content-type') as string },
      Buffer.from(await encoded.arrayBuffer()),
    )
    // The clone holds the cloning slot and is being prepared: the client gives up now.
    await gate.reached
    req.destroy()
    await sleep(CLOSE_SEEN_MS)
    gate.open()

    const res = await createVoice(otherOrgKey)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ object: 'audio.voice' })
  }, 60_000)

  it('a speech request whose client leaves while its saved voice is prepared again gives the TTS slot back', async () => {
    await makeStale()
    const gate = gated.arm()
    const body = Buffer.from(
      JSON.stringify({ model: 'svc-tts-2-latest', input: 'Hi.', voice: { id: savedVoiceId } }),
    )
    const req = sendRaw('/v1/audio/speech', { 'content-type': 'application/json' }, body)
    await gate.reached
    req.destroy()
    await sleep(CLOSE_SEEN_MS)
    gate.open()
    // The preparation carries on without the client and is kept (contract 3); by then the request would hold its slot.
    await expect.poll(preparedAgain, { timeout: 20_000 }).toBe(true)
    await sleep(CLOSE_SEEN_MS)

    // The organization has one TTS slot: a leaked one would make this a 429.
    const res = await speech({ model: 'svc-tts-mini-0.8' })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
  }, 60_000)

  it('a text-input WebSocket closed while its saved voice is prepared again gives the TTS slot back', async () => {
    await makeStale()
    const gate = gated.arm()
    const ws = await connectWs(
      `${svc.baseUrl.replace('http', 'ws')}/v1/tts/realtime?model=svc-tts-2-latest&voice=${savedVoiceId}`,
      svc.apiKey,
    )
    if (!('socket' in ws)) throw new Error(`upgrade refused: ${ws.status}`)
    await gate.reached
    ws.socket.terminate()
    await sleep(CLOSE_SEEN_MS)
    gate.open()
    await expect.poll(preparedAgain, { timeout: 20_000 }).toBe(true)
    await sleep(CLOSE_SEEN_MS)

    const res = await speech({ model: 'svc-tts-mini-0.8' })
    expect(res.status).toBe(200)
    await res.arrayBuffer()
  }, 60_000)
})
