import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '../../../schema/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { realSpeechAvailable, spokenDigits } from '../../testing/speakers.ts'
import { type BrowserHeaders, type RunningStudio, startStudio, studioRefusal } from '../../testing/studio.ts'
import { callThroughStudio, type StudioCall } from '../../testing/webrtc-studio-peer.ts'
import { connectWs } from '../../testing/ws-client.ts'

/**
 * Live transcription over WebRTC through the studio backend (live/calls.ts): a libwebrtc peer as the browser, signed
 * in with a cookie and CSRF token, the real service behind the studio, loopback UDP. The backend relays the SDP
 * exchange with a secret it mints; media and events flow between the peer and the service.
 */
let svc: RunningService
let studio: RunningStudio
const open: StudioCall[] = []
let reviewer: BrowserHeaders
let otherReviewer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService({
    callNetwork: {
      addresses: ['127.0.0.1'],
      portRange: { min: 48000, max: 48999 },
      connectTimeoutMs: 2000,
      disconnectedTimeoutMs: 2000,
    },
  })
  studio = await startStudio(svc)
  reviewer = await studio.signInAs('reviewer', 'ria')
  otherReviewer = await studio.signInAs('reviewer', 'rob')
}, 60_000)

afterEach(async () => {
  for (const call of open.splice(0)) call.close()
  await expect.poll(() => svc.service.asrSlots.held(), { timeout: 20_000 }).toBe(0)
}, 30_000)

afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

async function dial(headers = reviewer) {
  const call = await callThroughStudio(studio.base, headers)
  open.push(call)
  return call
}

describe('POST /api/v1/realtime/calls through the studio', () => {
  it('answers 201 with the service’s SDP and the call under /api; the events come on the data channel; hang-up frees the slot', async () => {
    const call = await dial()
    expect(call.response.status).toBe(201)
    expect(call.response.headers.get('content-type')).toMatch(/^application\/sdp/)
    expect(call.location).toMatch(/^\/api\/v1\/realtime\/calls\/rtc_[0-9a-f]+$/)
    const answer = await call.response.text()
    expect(answer).toMatch(/^v=0\r\n/)
    expect(answer).toMatch(/^a=candidate:.* 127\.0\.0\.1 \d+ typ host/m)
    // No credential of any kind reaches the browser.
    expect(answer).not.toMatch(/ek_|sk_/)
    expect(JSON.stringify([...call.response.headers])).not.toMatch(/ek_|sk_/)
    await call.opened
    const created = await call.next((m) => m.type === 'session.created')
    // The secret the backend minted: a transcription session, diarization off.
    expect(created.session).toMatchObject({ type: 'transcription' })
    expect((created.session as { diarization?: { enabled?: boolean } }).diarization?.enabled ?? false).toBe(
      false,
    )
    expect(svc.service.asrSlots.held()).toBe(1)

    // Another reviewer cannot hang it up, nor can anyone without CSRF.
    const stranger = await call.hangUp(otherReviewer)
    expect(stranger.status).toBe(404)
    expect((await studioRefusal(stranger)).code).toBe('not_found')
    const noCsrf = await call.hangUp({ ...reviewer, 'x-csrf-token': 'stale' })
    expect(noCsrf.status).toBe(403)
    expect((await studioRefusal(noCsrf)).code).toBe('csrf_refused')
    expect(svc.service.asrSlots.held()).toBe(1)

    const hungUp = await call.hangUp()
    expect(hungUp.status).toBe(204)
    expect(svc.service.asrSlots.held()).toBe(0)
    const again = await call.hangUp()
    expect(again.status).toBe(404)
    expect((await studioRefusal(again)).code).toBe('not_found')
  }, 30_000)

  it.skipIf(!realSpeechAvailable())(
    'words of a real voice arrive on the data channel',
    async () => {
      const digits = await spokenDigits('george', [0])
      const call = await dial()
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
      await call.play(new Float32Array(16_000))
      const done = await call.next(
        (m) => m.type === 'conversation.item.input_audio_transcription.completed',
        60_000,
      )
      expect(String(done.transcript).trim()).not.toBe('')
      expect((await call.hangUp()).status).toBe(204)
    },
    120_000,
  )

  it('relays the service’s 429 with its session headers at capacity, and admits again once the call hangs up', async () => {
    // Four sessions over the socket, with the backend's own key (the organization the studio's calls count under).
    const sockets = []
    for (let i = 0; i < 4; i++) {
      const client = await connectWs(`${svc.baseUrl.replace('http', 'ws')}/v1/realtime`, svc.apiKey)
      if (!('socket' in client)) throw new Error('refused')
      await client.next((m) => m.type === 'session.created')
      sockets.push(client)
    }
    const fifth = await dial()
    expect(fifth.response.status).toBe(201)
    // The service has sent on the channel before anyone hangs up (a close racing the service's own channel opening
    // is the service's matter, not the relay's).
    await fifth.next((m) => m.type === 'session.created')
    const sixth = await dial()
    expect(sixth.response.status).toBe(429)
    expect(sixth.response.headers.get('x-ratelimit-remaining-concurrent-sessions')).toBe('0')
    expect(sixth.response.headers.get('retry-after')).not.toBeNull()
    expect(await sixth.response.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } })
    expect((await fifth.hangUp()).status).toBe(204)
    const seventh = await dial()
    expect(seventh.response.status).toBe(201)
    await seventh.next((m) => m.type === 'session.created')
    for (const s of sockets) s.socket.close()
  }, 60_000)

  it('refuses the wrong roles, bodies that are not an SDP offer, offers over 64 KiB and other origins', async () => {
    for (const role of ['designer', 'consent_admin'] as Role[]) {
      const headers = await studio.signInAs(role)
      const res = await fetch(`${studio.base}/api/v1/realtime/calls`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/sdp' },
        body: 'v=0\r\n',
      })
      expect(res.status).toBe(403)
      expect((await studioRefusal(res)).code).toBe('forbidden_for_role')
      const del = await fetch(`${studio.base}/api/v1/realtime/calls/rtc_00`, {
        method: 'DELETE',
        headers: { ...headers },
      })
      expect(del.status).toBe(403)
    }
    const post = (body: string, type = 'application/sdp', extra: Record<string, string> = {}) =>
      fetch(`${studio.base}/api/v1/realtime/calls`, {
        method: 'POST',
        headers: { ...reviewer, 'content-type': type, ...extra },
        body,
      })
    const json = await post('{}', 'application/json')
    expect(json.status).toBe(415)
    expect((await studioRefusal(json)).code).toBe('unsupported_media_type')
    const huge = await post(`v=0\r\n${'a=x\r\n'.repeat(14_000)}`)
    expect(huge.status).toBe(413)
    expect((await studioRefusal(huge)).code).toBe('too_large')
    const foreign = await post('v=0\r\n', 'application/sdp', { origin: 'https://elsewhere.example' })
    expect(foreign.status).toBe(403)
    expect((await studioRefusal(foreign)).code).toBe('origin_refused')
    // The service's own refusal of a malformed offer comes back in its shape; nothing is held.
    const malformed = await post('hello')
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toMatchObject({ param: 'sdp' })
    expect(svc.service.asrSlots.held()).toBe(0)
  }, 30_000)
})
