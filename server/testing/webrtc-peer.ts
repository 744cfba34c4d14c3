import wrtc from '@roamhq/wrtc'

/**
 * A WebRTC peer as a browser would be (libwebrtc through @roamhq/wrtc): it offers one audio track and opens the
 * `oai-events` data channel, posts the offer to `POST /v1/realtime/calls`, and streams 16 kHz audio into the call in
 * real time, 10 ms a frame. Events from the service are collected as they arrive. (`placeCall` posts the offer
 * elsewhere: webrtc-studio-peer.ts goes through the studio.)
 */
export interface TestCall {
  response: Response
  /** Where the service put the call (`Location`), when answered. */
  location: string | null
  messages: Array<Record<string, unknown>>
  /** Resolves with the first event matching `match` (rejects after `timeoutMs`). */
  next(match: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>
  /** Plays 16 kHz samples into the call at real time (resolves when all is sent). */
  play(samples: Float32Array): Promise<void>
  send(event: Record<string, unknown>): void
  /** The data channel is open. */
  opened: Promise<void>
  pc: RTCPeerConnection
  close(): void
}

/** Dials the service directly: `POST /v1/realtime/calls` with `key`, the offer alone or with a session form. */
export function callService(
  baseUrl: string,
  key: string,
  opts: { session?: Record<string, unknown>; answer?: boolean } = {},
): Promise<TestCall> {
  return placeCall((offer) => {
    const body = opts.session ? form(offer, opts.session) : offer
    return fetch(`${baseUrl}/v1/realtime/calls`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        ...(typeof body === 'string' ? { 'content-type': 'application/sdp' } : {}),
      },
      body,
    })
  }, opts)
}

/**
 * Makes the offer, has `place` post it wherever the call goes (the service, or the studio), and sets the answer of a
 * 201 (unless `answer: false`: an answered call that never connects).
 */
export async function placeCall(
  place: (offer: string) => Promise<Response>,
  opts: { answer?: boolean } = {},
): Promise<TestCall> {
  const pc = new wrtc.RTCPeerConnection({ iceServers: [] })
  const source = new wrtc.nonstandard.RTCAudioSource()
  const track = source.createTrack()
  pc.addTrack(track)
  const channel = pc.createDataChannel('oai-events')
  const messages: Array<Record<string, unknown>> = []
  const waiters = new Set<() => void>()
  channel.onmessage = ({ data }) => {
    messages.push(JSON.parse(String(data)))
    for (const wake of waiters) wake()
  }
  const opened = new Promise<void>((resolve) => {
    channel.onopen = () => resolve()
  })
  await pc.setLocalDescription(await pc.createOffer())
  await new Promise<void>((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && resolve()
  })
  const response = await place(pc.localDescription?.sdp ?? '')
  if (response.status === 201 && opts.answer !== false) {
    await pc.setRemoteDescription({ type: 'answer', sdp: await response.clone().text() })
  }
  let stopped = false
  return {
    response,
    location: response.headers.get('location'),
    messages,
    opened,
    pc,
    next(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match)
          if (!found) return
          cleanup()
          resolve(found)
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(`no matching event in ${timeoutMs} ms; got ${messages.map((m) => m.type).join(', ')}`),
          )
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      })
    },
    async play(samples) {
      const frame = 160
      const started = performance.now()
      for (let i = 0; i * frame < samples.length && !stopped; i++) {
        const pcm = new Int16Array(frame)
        for (let j = 0; j < frame; j++) {
          const x = samples[i * frame + j] ?? 0
          pcm[j] = Math.max(-32768, Math.min(32767, Math.round(x * 32767)))
        }
        source.onData({
          samples: pcm,
          sampleRate: 16_000,
          bitsPerSample: 16,
          channelCount: 1,
          numberOfFrames: frame,
        })
        const due = started + (i + 1) * 10
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))
      }
    },
    send(event) {
      channel.send(JSON.stringify(event))
    },
    close() {
      stopped = true
      track.stop()
      pc.close()
    },
  }
}

function form(sdp: string, session: Record<string, unknown>): FormData {
  const body = new FormData()
  body.set('sdp', sdp)
  body.set('session', JSON.stringify(session))
  return body
}
