import wrtc from '@roamhq/wrtc'
import type { BrowserHeaders } from './studio.ts'

/**
 * A libwebrtc peer (@roamhq/wrtc) placing its call through the studio backend as the browser does
 * (`POST /api/v1/realtime/calls` with the session cookie and CSRF token, server/studio/live/calls.ts): one audio
 * track, the `oai-events` data channel, the offer sent once ICE gathering is complete. What the service sends on the
 * channel is collected; `play` streams 16 kHz audio into the call in real time, 10 ms a frame.
 */
export interface StudioCall {
  response: Response
  /** `Location` of the answer (the call under `/api`). */
  location: string | null
  messages: Array<Record<string, unknown>>
  opened: Promise<void>
  next(match: (m: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>
  play(samples: Float32Array): Promise<void>
  send(event: Record<string, unknown>): void
  /** `DELETE` of the call with these headers (default: the caller's own). */
  hangUp(headers?: BrowserHeaders): Promise<Response>
  close(): void
}

export async function callThroughStudio(studioBase: string, headers: BrowserHeaders): Promise<StudioCall> {
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
  const response = await fetch(`${studioBase}/api/v1/realtime/calls`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/sdp', origin: studioBase },
    body: pc.localDescription?.sdp ?? '',
  })
  if (response.status === 201)
    await pc.setRemoteDescription({ type: 'answer', sdp: await response.clone().text() })
  const location = response.headers.get('location')
  let stopped = false
  return {
    response,
    location,
    messages,
    opened,
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
    hangUp(as = headers) {
      return fetch(`${studioBase}${location}`, { method: 'DELETE', headers: { ...as, origin: studioBase } })
    },
    close() {
      stopped = true
      track.stop()
      pc.close()
    },
  }
}
