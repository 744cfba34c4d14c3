import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createSocket } from 'node:dgram'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, startSpeechService } from '../../../testing/service.ts'
import { realSpeechAvailable, spokenDigits } from '../../../testing/speakers.ts'
import { callService, type TestCall } from '../../../testing/webrtc-peer.ts'
import { connectWs } from '../../../testing/ws-client.ts'

/**
 * WebRTC calls into realtime transcription through the real service (contract 4.11, 7): a libwebrtc peer as the
 * browser, real speech (FSDD digits) as its microphone, loopback UDP. The short timeouts are the service's own
 * settings, so that a peer that vanishes or never connects is seen in seconds rather than the default 30.
 */
let svc: RunningService
const open: TestCall[] = []
let digits: Float32Array

beforeAll(async () => {
  svc = await startSpeechService({
    callNetwork: {
      addresses: ['127.0.0.1'],
      portRange: { min: 47000, max: 47999 },
      connectTimeoutMs: 2000,
      disconnectedTimeoutMs: 2000,
    },
  })
  if (realSpeechAvailable()) digits = await spokenDigits('george', [0])
}, 60_000)

// Each test starts with every slot free, whatever the one before it left (a failure included).
afterEach(async () => {
  for (const call of open.splice(0)) call.close()
  await expect.poll(() => svc.service.asrSlots.held(), { timeout: 20_000 }).toBe(0)
}, 30_000)

afterAll(async () => {
  await svc?.close()
})

async function dial(opts: Parameters<typeof callService>[2] = {}) {
  const call = await callService(svc.baseUrl, svc.apiKey, opts)
  open.push(call)
  return call
}

describe('POST /v1/realtime/calls with a real WebRTC peer', () => {
  it('answers 201 with SDP offering loopback host candidates in the port range only, and the call at Location', async () => {
    const call = await dial()
    expect(call.response.status).toBe(201)
    expect(call.response.headers.get('content-type')).toMatch(/^application\/sdp/)
    expect(call.location).toMatch(/^\/v1\/realtime\/calls\/rtc_[0-9a-f]{24}$/)
    const answer = await call.response.text()
    const candidates = answer.split('\r\n').filter((l) => l.startsWith('a=candidate'))
    expect(candidates.length).toBeGreaterThan(0)
    for (const line of candidates) {
      const port = Number(/ 127\.0\.0\.1 (\d+) typ host/.exec(line)?.[1])
      expect(port, line).toBeGreaterThanOrEqual(47000)
      expect(port, line).toBeLessThanOrEqual(47999)
    }
    await call.opened
    expect((await call.next((m) => m.type === 'session.created')).session).toMatchObject({
      type: 'transcription',
    })
    expect(svc.service.asrSlots.held()).toBe(1)
    // Hang-up through the API gives the slot back at once; the call is then gone.
    const hangUp = await fetch(`${svc.baseUrl}${call.location}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${svc.apiKey}` },
    })
    expect(hangUp.status).toBe(204)
    expect(svc.service.asrSlots.held()).toBe(0)
    const again = await fetch(`${svc.baseUrl}${call.location}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${svc.apiKey}` },
    })
    expect(again.status).toBe(404)
    expect(await again.json()).toMatchObject({ error: { code: 'call_not_found' } })
  }, 30_000)

  it.skipIf(!realSpeechAvailable())(
    "transcribes a real person's voice sent as Opus, words arriving on the data channel",
    async () => {
      const call = await dial({ session: { type: 'transcription' } })
      expect(call.response.status).toBe(201)
      await call.opened
      await call.next((m) => m.type === 'session.created')
      const playing = call.play(digits)
      const delta = await call.next(
        (m) => m.type === 'conversation.item.input_audio_transcription.delta',
        60_000,
      )
      expect(String(delta.delta).length).toBeGreaterThan(0)
      await playing
      // Silence after the speech ends the turn (server VAD), so the item is transcribed.
      await call.play(new Float32Array(16_000))
      const done = await call.next(
        (m) => m.type === 'conversation.item.input_audio_transcription.completed',
        60_000,
      )
      expect(String(done.transcript).split(/\s+/).length).toBeGreaterThanOrEqual(3)
      call.close()
      // The peer closing (DTLS and SCTP shut down) ends the call and frees its slot.
      await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
    },
    120_000,
  )

  it('survives peers that hang up the moment their channel opens, with no slot left held', async () => {
    // The service sends the events it held (session.created) as the channel opens; a peer gone by then closes the
    // channel under it. Ten such calls: no uncaught error (vitest fails the run on one), every slot back.
    for (let i = 0; i < 10; i++) {
      const call = await dial()
      expect(call.response.status).toBe(201)
      await call.opened
      call.close()
    }
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 20_000 }).toBe(0)
    expect((await fetch(`${svc.baseUrl}/health`)).status).toBe(200)
  }, 60_000)

  it.skipIf(!realSpeechAvailable())(
    'ignores a flood of foreign UDP at the call’s port (garbage, forged STUN, DTLS and RTP) and goes on transcribing',
    async () => {
      const call = await dial()
      await call.opened
      await call.next((m) => m.type === 'session.created')
      const answer = await call.response.clone().text()
      const port = Number(/ 127\.0\.0\.1 (\d+) typ host/.exec(answer)?.[1])
      const flood = createSocket('udp4')
      const heads = [[0x00, 0x01], [0x16, 0xfe, 0xfd], [0x80, 0x6f], []]
      for (let i = 0; i < 3000; i++) {
        const packet = randomBytes(12 + (i % 1200))
        Buffer.from(heads[i % heads.length] as number[]).copy(packet)
        flood.send(packet, port, '127.0.0.1')
        if (i % 200 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      await new Promise((resolve) => setTimeout(resolve, 200))
      flood.close()
      const playing = call.play(digits)
      const delta = await call.next(
        (m) => m.type === 'conversation.item.input_audio_transcription.delta',
        60_000,
      )
      expect(String(delta.delta).length).toBeGreaterThan(0)
      await playing
      expect(svc.service.asrSlots.held()).toBe(1)
    },
    120_000,
  )

  it('frees the slot of an answered offer that never connects, within the connect timeout', async () => {
    const call = await dial({ answer: false })
    expect(call.response.status).toBe(201)
    expect(svc.service.asrSlots.held()).toBe(1)
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 6000 }).toBe(0)
  }, 30_000)

  it('frees the slot when the peer vanishes without a goodbye (its process killed)', async () => {
    const peer = spawn(
      process.execPath,
      ['--import', 'tsx', 'server/testing/webrtc-peer-process.ts', svc.baseUrl, svc.apiKey],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const said = await new Promise<string>((resolve) =>
      peer.stdout.once('data', (d) => resolve(String(d).trim())),
    )
    expect(said).toBe('open')
    expect(svc.service.asrSlots.held()).toBe(1)
    // No DTLS close, no SCTP abort: only ICE consent checks going unanswered tell the service.
    peer.kill('SIGKILL')
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 20_000, interval: 250 }).toBe(0)
  }, 40_000)

  it('is refused with 429 before any media when the organization holds its 5 sessions', async () => {
    const sockets = []
    for (let i = 0; i < 4; i++) {
      const client = await connectWs(`${svc.baseUrl.replace('http', 'ws')}/v1/realtime`, svc.apiKey)
      if (!('socket' in client)) throw new Error('refused')
      await client.next((m) => m.type === 'session.created')
      sockets.push(client)
    }
    const fifth = await dial()
    expect(fifth.response.status).toBe(201)
    const sixth = await dial()
    expect(sixth.response.status).toBe(429)
    expect(sixth.response.headers.get('x-ratelimit-remaining-concurrent-sessions')).toBe('0')
    expect(await sixth.response.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } })
    fifth.close()
    for (const s of sockets) s.socket.close()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  }, 30_000)

  it('refuses an offer without audio and a hostile offer with 400, never a 5xx or a slot held', async () => {
    const bad = [
      'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:\u0000\r\n',
      `v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n${'a=candidate:1 1 udp 1 127.0.0.1 9 typ host\r\n'.repeat(500)}`,
    ]
    for (const sdp of bad) {
      const res = await fetch(`${svc.baseUrl}/v1/realtime/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/sdp' },
        body: sdp,
      })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ param: 'sdp' })
    }
    expect(svc.service.asrSlots.held()).toBe(0)
  })
})
