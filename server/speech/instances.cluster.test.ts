import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_PHRASE } from '../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../engine/index.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'
import { spokenPcm, wavFile } from '../testing/spoken-audio.ts'
import { connectWs } from '../testing/ws-client.ts'

/**
 * Two speech service instances on one PostgreSQL schema (the `postgres` project; limits in Redis there too), as behind
 * a load balancer, over HTTP and WebSocket only: a consent recorded through A makes a voice through B; revoked through
 * B it is gone through A, its voice with it and every recording deleted; a client secret minted by A opens a
 * transcription session on B.
 */

let synth: Synthesizer
let a: RunningService
let b: RunningService
let consentWav: Buffer
let sampleWav: Buffer

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  const pad = new Int16Array(12_000)
  consentWav = wavFile(
    Int16Array.from([...pad, ...(await spokenPcm(synth, CONSENT_PHRASE, 'english_40')), ...pad]),
  )
  sampleWav = wavFile(
    await spokenPcm(
      synth,
      'The weather today is bright and calm, and the river runs slowly past the mill.',
      'english_40',
    ),
  )
  a = await startSpeechService({ synthesizer: synth })
  b = await startSpeechService({ synthesizer: synth, dataDir: a.dir })
}, 120_000)
afterAll(async () => {
  await b?.close()
  await a?.close()
  await synth?.close()
})

const auth = () => ({ authorization: `Bearer ${a.apiKey}` })

async function post(
  service: RunningService,
  path: string,
  fields: Record<string, string>,
  files: Record<string, Buffer>,
) {
  const body = new FormData()
  for (const [k, v] of Object.entries(fields)) body.append(k, v)
  for (const [k, v] of Object.entries(files)) body.append(k, new Blob([new Uint8Array(v)]), `${k}.wav`)
  const res = await fetch(`${service.baseUrl}${path}`, { method: 'POST', headers: auth(), body })
  return { status: res.status, body: (await res.json()) as { id: string } }
}

describe('two speech instances on one database', () => {
  it('share consents and voices: made through one, used and revoked through the other, gone everywhere', async () => {
    const consent = await post(
      a,
      '/v1/audio/voice_consents',
      { name: 'Ada', language: 'en-US' },
      { recording: consentWav },
    )
    expect(consent.status, JSON.stringify(consent.body)).toBe(200)
    const voice = await post(
      b,
      '/v1/audio/voices',
      { name: 'Ada narrator', consent: consent.body.id },
      { audio_sample: sampleWav },
    )
    expect(voice.status, JSON.stringify(voice.body)).toBe(200)
    const speak = (service: RunningService) =>
      fetch(`${service.baseUrl}/v1/audio/speech`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'svc-tts-2-latest',
          input: 'Hello there.',
          voice: { id: voice.body.id },
          response_format: 'pcm',
        }),
      })
    const spoken = await speak(a)
    expect(spoken.status).toBe(200)
    expect((await spoken.arrayBuffer()).byteLength).toBeGreaterThan(10_000)

    const revoked = await fetch(`${b.baseUrl}/v1/audio/voice_consents/${consent.body.id}`, {
      method: 'DELETE',
      headers: auth(),
    })
    expect(revoked.status).toBe(200)
    expect(
      (await fetch(`${a.baseUrl}/v1/audio/voice_consents/${consent.body.id}`, { headers: auth() })).status,
    ).toBe(404)
    const gone = await speak(a)
    expect(gone.status).toBe(404)
    await gone.arrayBuffer()
    // The recordings are deleted from the one place they were kept, whichever instance asks.
    for (const service of [a, b]) {
      expect(await service.service.voices.store.artifactIds('consents')).not.toContain(consent.body.id)
      expect(await service.service.voices.store.artifactIds('voices')).not.toContain(voice.body.id)
    }
  }, 120_000)

  it('open a transcription session on one with a client secret minted by the other', async () => {
    const minted = await fetch(`${a.baseUrl}/v1/realtime/client_secrets`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ session: { type: 'transcription' } }),
    })
    expect(minted.status).toBe(200)
    const { value } = (await minted.json()) as { value: string }
    const client = await connectWs(`${b.baseUrl.replace('http', 'ws')}/v1/realtime`, value)
    if (!('socket' in client)) throw new Error(`refused: ${JSON.stringify(client)}`)
    expect((await client.next((m) => m.type === 'session.created' || m.type === 'error')).type).toBe(
      'session.created',
    )
    client.socket.close()
  })
})
