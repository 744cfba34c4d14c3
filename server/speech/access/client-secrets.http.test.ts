import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clientSecretResponseSchema } from '../../../schema/index.ts'
import { createDiarizer } from '../../engine/diarization/index.ts'
import { createPyannoteSegmenter } from '../../engine/segmentation/pyannote.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { connectWs } from '../../testing/ws-client.ts'

/** Ephemeral client secrets and WebRTC signalling (contract 4.11, 4.12, 5, 7; docs/transcription.md). */
let svc: RunningService
let switchedOff: RunningService

beforeAll(async () => {
  ;[svc, switchedOff] = await Promise.all([
    startSpeechService(),
    startSpeechService({ diarizationEnabled: false }),
  ])
})
afterAll(async () => {
  await Promise.all([svc.close(), switchedOff.close()])
})

function mint(body: unknown, key: string | null = svc.apiKey, service = svc) {
  return fetch(`${service.baseUrl}/v1/realtime/client_secrets`, {
    method: 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
}

describe('POST /v1/realtime/client_secrets', () => {
  it('turns an organization key into an ek_ credential with the session configuration', async () => {
    const before = Math.floor(Date.now() / 1000)
    const res = await mint({
      session: { type: 'transcription', diarization: { enabled: true, max_speakers: 3 } },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const body = clientSecretResponseSchema.parse(await res.json())
    expect(body.value).toMatch(/^ek_/)
    expect(body.expires_at).toBeGreaterThanOrEqual(before + 600)
    expect(body.expires_at).toBeLessThanOrEqual(before + 602)
    expect(body.session.diarization).toEqual({ enabled: true, status: 'active', max_speakers: 3 })
    const principal = await svc.service.keys.authenticate(body.value)
    expect(principal?.kind).toBe('ephemeral')
    expect([...(principal?.permissions ?? [])]).toEqual(['audio:transcribe'])
  })

  it('accepts an empty body and expires_after from 10 to 7200 seconds, not beyond', async () => {
    const empty = clientSecretResponseSchema.parse(await (await mint(undefined)).json())
    expect(empty.session.diarization).toBeUndefined()
    for (const seconds of [10, 7200]) {
      const res = await mint({ expires_after: { anchor: 'created_at', seconds } })
      expect(res.status).toBe(200)
      const { expires_at } = (await res.json()) as { expires_at: number }
      expect(Math.abs(expires_at - (Math.floor(Date.now() / 1000) + seconds))).toBeLessThanOrEqual(2)
    }
    for (const seconds of [9, 7201, 60.5]) {
      const res = await mint({ expires_after: { seconds } })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ param: 'expires_after.seconds' })
    }
  })

  it('clamps max_speakers out of 1–20 and reports the requested value', async () => {
    for (const [requested, applied] of [
      [0, 1],
      [21, 20],
      [99, 20],
    ]) {
      const body = clientSecretResponseSchema.parse(
        await (await mint({ session: { diarization: { enabled: true, max_speakers: requested } } })).json(),
      )
      expect(body.session.diarization).toEqual({
        enabled: true,
        status: 'active',
        max_speakers: applied,
        max_speakers_requested: requested,
      })
    }
  })

  it('reports diarization unavailable when the deployment switched it off', async () => {
    const body = clientSecretResponseSchema.parse(
      await (
        await mint({ session: { diarization: { enabled: true } } }, switchedOff.apiKey, switchedOff)
      ).json(),
    )
    expect(body.session.diarization?.status).toBe('unavailable')
  })

  it('reports diarization unavailable when the segmentation model is missing, as health does', async () => {
    const modelless = await startSpeechService({
      diarizer: createDiarizer({
        segmenter: createPyannoteSegmenter({ modelPath: '/nonexistent/segmentation.onnx' }),
      }),
    })
    try {
      const body = clientSecretResponseSchema.parse(
        await (
          await mint({ session: { diarization: { enabled: true } } }, modelless.apiKey, modelless)
        ).json(),
      )
      expect(body.session.diarization?.status).toBe('unavailable')
      const health = (await (await fetch(`${modelless.baseUrl}/health`)).json()) as {
        engines: { diarization: boolean }
      }
      expect(health.engines.diarization).toBe(false)
      // The service with the model says active.
      const active = clientSecretResponseSchema.parse(
        await (await mint({ session: { diarization: { enabled: true } } })).json(),
      )
      expect(active.session.diarization?.status).toBe('active')
    } finally {
      await modelless.close()
    }
  })

  it('rejects unknown or mistyped fields with a 400 detail naming them', async () => {
    const cases: Array<[unknown, string]> = [
      [{ session: { diarization: { enabled: 'yes' } } }, 'session.diarization.enabled'],
      [{ session: { diarization: { max_speakers: '3' } } }, 'session.diarization.max_speakers'],
      [
        { session: { audio: { input: { format: { type: 'audio/pcm', rate: 8000 } } } } },
        'session.audio.input.format.rate',
      ],
      [{ session: { type: 'realtime' } }, 'session.type'],
      [{ sesion: {} }, 'sesion'],
    ]
    for (const [body, param] of cases) {
      const res = await mint(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await res.json()).toMatchObject({ param, request_id: expect.stringMatching(/^req_/) })
    }
  })

  it('needs audio:transcribe, and a durable key: an ek_ cannot mint another', async () => {
    expect((await mint({}, null)).status).toBe(401)
    const ttsOnly = await svc.service.keys.create({
      kind: 'organization',
      org: 'test-org',
      permissions: ['tts:generate'],
    })
    expect((await mint({}, ttsOnly.key)).status).toBe(403)
    const { value } = (await (await mint({})).json()) as { value: string }
    const res = await mint({}, value)
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ error: { code: 'durable_api_key_required' } })
  })

  it('lets a legacy key mint a secret that resolves to the legacy owner', async () => {
    const legacy = await svc.service.keys.create({ kind: 'legacy' })
    const res = await mint({}, legacy.key)
    expect(res.status).toBe(200)
    const { value } = (await res.json()) as { value: string }
    expect((await svc.service.keys.authenticate(value))?.ownerId).toBe(
      (await svc.service.keys.authenticate(legacy.key))?.ownerId,
    )
    // A second secret reuses the same owner row.
    const again = (await (await mint({}, legacy.key)).json()) as { value: string }
    expect((await svc.service.keys.authenticate(again.value))?.ownerId).toBe(legacy.id)
  })

  it('opens a realtime session with the minted configuration, and nothing that manages voices', async () => {
    const { value } = (await (
      await mint({ session: { diarization: { enabled: true, max_speakers: 25 } } })
    ).json()) as { value: string }
    const client = await connectWs(`${svc.baseUrl.replace('http', 'ws')}/v1/realtime`, value)
    if (!('socket' in client)) throw new Error(`refused ${JSON.stringify(client)}`)
    await client.next((m) => m.type === 'session.created')
    const updated = await client.next((m) => m.type === 'session.updated')
    expect((updated.session as { diarization: unknown }).diarization).toEqual({
      enabled: true,
      status: 'active',
      max_speakers: 20,
      max_speakers_requested: 25,
    })
    client.socket.close()

    const voices = await fetch(`${svc.baseUrl}/v1/audio/voice_consents`, {
      headers: { authorization: `Bearer ${value}` },
    })
    expect(voices.status).toBe(403)
    const speech = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hi' }),
    })
    expect(speech.status).toBe(403)
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  })
})

const OFFER =
  'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n'

function call(body: BodyInit, contentType: string | null, key: string | null = svc.apiKey) {
  return fetch(`${svc.baseUrl}/v1/realtime/calls`, {
    method: 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(contentType ? { 'content-type': contentType } : {}),
    },
    body,
  })
}

function callForm(session?: unknown) {
  const form = new FormData()
  form.append('sdp', OFFER)
  if (session !== undefined) form.append('session', JSON.stringify(session))
  return form
}

describe('POST /v1/realtime/calls (WebRTC signalling)', () => {
  it('needs a key with audio:transcribe and a real SDP offer', async () => {
    expect((await call(OFFER, 'application/sdp', null)).status).toBe(401)
    const res = await call('hello', 'application/sdp')
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ param: 'sdp' })
  })

  it('refuses diarization on this transport with 400 diarization_not_supported_on_transport', async () => {
    const res = await call(callForm({ type: 'transcription', diarization: { enabled: true } }), null)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: 'diarization_not_supported_on_transport' } })
    // Also when the diarization request came with the ek_ credential.
    const { value } = (await (await mint({ session: { diarization: { enabled: true } } })).json()) as {
      value: string
    }
    const viaSecret = await call(OFFER, 'application/sdp', value)
    expect(viaSecret.status).toBe(400)
    expect(await viaSecret.json()).toMatchObject({
      error: { code: 'diarization_not_supported_on_transport' },
    })
  })

  it('answers 429 at capacity before any media, with the session headers', async () => {
    const sockets = []
    for (let i = 0; i < 5; i++) {
      const client = await connectWs(`${svc.baseUrl.replace('http', 'ws')}/v1/stt/realtime`, svc.apiKey)
      if (!('socket' in client)) throw new Error('refused')
      await client.next((m) => m.type === 'session.created')
      sockets.push(client)
    }
    const res = await call(OFFER, 'application/sdp')
    expect(res.status).toBe(429)
    expect(res.headers.get('x-ratelimit-limit-concurrent-sessions')).toBe('5')
    expect(res.headers.get('retry-after')).toBe('1')
    expect(await res.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } })
    for (const s of sockets) s.socket.close()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('refuses an offer libwebrtc cannot answer (no ICE credentials, no fingerprint) with 400, holding no slot', async () => {
    for (const [body, type] of [
      [OFFER, 'application/sdp'],
      [callForm({ type: 'transcription' }), null],
    ] as const) {
      const res = await call(body, type)
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ param: 'sdp' })
    }
    expect(svc.service.asrSlots.held()).toBe(0)
  })
})
