import wrtc from '@roamhq/wrtc'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningService, startSpeechService } from '../../server/testing/service.ts'
import { type RunningStudio, startStudio } from '../../server/testing/studio.ts'
import { ApiRequestError, setCsrfTokenSource } from './http.ts'
import type { LiveConnection } from './live-transcription.ts'
import { connectLiveWebRtc, type WebRtcHandlers } from './live-webrtc.ts'

/**
 * The browser's WebRTC client through the real studio backend to the real service: libwebrtc (@roamhq/wrtc) stands in
 * for the browser's RTCPeerConnection and a silent audio source for the microphone; fetch goes to the studio with the
 * session cookie. What crosses the wire is what Chromium would send.
 */
let svc: RunningService
let studio: RunningStudio
const realFetch = globalThis.fetch
const sent: Array<{ method: string; path: string; status: number }> = []

beforeAll(async () => {
  svc = await startSpeechService({
    callNetwork: { addresses: ['127.0.0.1'], connectTimeoutMs: 2000, disconnectedTimeoutMs: 2000 },
  })
  studio = await startStudio(svc)
}, 60_000)
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})
afterEach(async () => {
  vi.unstubAllGlobals()
  setCsrfTokenSource(() => null)
  sent.length = 0
  await expect.poll(() => svc.service.asrSlots.held(), { timeout: 20_000 }).toBe(0)
}, 30_000)

async function signInAs(role: 'reviewer' | 'designer') {
  const headers = await studio.signInAs(role)
  vi.stubGlobal('fetch', async (input: string | URL, init: RequestInit = {}) => {
    const withCookie = new Headers(init.headers)
    withCookie.set('cookie', headers.cookie)
    const res = await realFetch(new URL(input, studio.base), { ...init, headers: withCookie })
    // The studio runs in this process too: only the browser's own same-origin requests are noted.
    if (String(input).startsWith('/'))
      sent.push({ method: init.method ?? 'GET', path: String(input), status: res.status })
    return res
  })
  vi.stubGlobal('RTCPeerConnection', wrtc.RTCPeerConnection)
  setCsrfTokenSource(() => headers['x-csrf-token'])
}

/** A microphone that is a silent libwebrtc audio source; `stopped()` says whether its track was stopped. */
function fakeMicrophone() {
  const source = new wrtc.nonstandard.RTCAudioSource()
  const track = source.createTrack()
  const stream = new wrtc.MediaStream([track])
  return {
    devices: { getUserMedia: async () => stream as unknown as MediaStream },
    stopped: () => track.readyState === 'ended',
  }
}

function collect() {
  const events: Array<{ type: string } & Record<string, unknown>> = []
  let opened!: () => void
  let failed!: (error: unknown) => void
  let closed!: (info: { code: number; opened: boolean }) => void
  const open = new Promise<void>((resolve) => {
    opened = resolve
  })
  const failure = new Promise<unknown>((resolve) => {
    failed = resolve
  })
  const close = new Promise<{ code: number; opened: boolean }>((resolve) => {
    closed = resolve
  })
  const handlers: WebRtcHandlers = {
    onOpen: () => opened(),
    onEvent: (event) => events.push(event),
    onClose: (info) => closed(info),
    onFailed: (error) => failed(error),
  }
  const next = async (type: string, timeoutMs = 20_000) => {
    const until = Date.now() + timeoutMs
    while (Date.now() < until) {
      const found = events.find((e) => e.type === type)
      if (found) return found
      await new Promise((r) => setTimeout(r, 50))
    }
    throw new Error(`no ${type}; got ${events.map((e) => e.type).join(', ')}`)
  }
  return { handlers, events, open, failure, close, next }
}

describe('connectLiveWebRtc through the studio', () => {
  it('places the call, hands the channel’s events to the handlers, commits on the channel and hangs up on close', async () => {
    await signInAs('reviewer')
    const mic = fakeMicrophone()
    const session = collect()
    const connection: LiveConnection = connectLiveWebRtc(session.handlers, mic.devices)
    await session.open
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/api/v1/realtime/calls', status: 201 })
    await session.next('session.created')
    expect(svc.service.asrSlots.held()).toBe(1)
    // Nothing was said: the service refuses the commit, on the channel, as it would on the socket.
    connection.commit()
    const refused = await session.next('error')
    expect((refused.error as { code?: string }).code).toBe('input_audio_buffer_commit_empty')

    connection.close()
    expect(await session.close).toMatchObject({ code: 1000, opened: true })
    // The hang-up went first (204, the slot free at once), then the peer connection and the track were closed.
    expect(sent[1]).toMatchObject({ method: 'DELETE', status: 204 })
    expect(sent[1]?.path).toMatch(/^\/api\/v1\/realtime\/calls\/rtc_[0-9a-f]+$/)
    expect(svc.service.asrSlots.held()).toBe(0)
    expect(mic.stopped()).toBe(true)
  }, 30_000)

  it('a refused call fails with the backend’s refusal and lets the microphone go', async () => {
    await signInAs('designer')
    const mic = fakeMicrophone()
    const session = collect()
    connectLiveWebRtc(session.handlers, mic.devices)
    const error = await session.failure
    expect(error).toBeInstanceOf(ApiRequestError)
    expect((error as ApiRequestError).code).toBe('forbidden_for_role')
    expect(mic.stopped()).toBe(true)
  }, 30_000)

  it('a microphone that cannot be opened fails before anything is sent', async () => {
    await signInAs('reviewer')
    const session = collect()
    const denied = Object.assign(new Error('denied'), { name: 'NotAllowedError' })
    connectLiveWebRtc(session.handlers, {
      getUserMedia: async () => {
        throw denied
      },
    })
    expect(await session.failure).toBe(denied)
    expect(sent).toEqual([])
  })
})
