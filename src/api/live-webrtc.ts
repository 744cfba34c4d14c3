import { apiFetch, errorFrom } from './http.ts'
import type { LiveConnection, LiveHandlers } from './live-transcription.ts'
import { transcriptionEventSchema } from './transcripts.ts'

/**
 * Live transcription over WebRTC through the studio backend (`POST /api/v1/realtime/calls`,
 * `server/studio/live/calls.ts`): the microphone's track goes to the speech service as Opus over a peer connection,
 * and the service's events come on the `oai-events` data channel, the same JSON as on the socket. The backend mints
 * the session's ephemeral credential and relays the SDP exchange, so the browser never holds a key. Host candidates
 * only: no STUN or TURN server is asked (the service offers the addresses it is configured with).
 *
 * The same `LiveConnection` as the socket's, except that the connection owns the microphone: `sendAudio` does
 * nothing (the track streams by itself). Speaker labels are not available on this transport.
 */

/** How long ICE gathering may take before the offer is sent with what was gathered. */
const GATHERING_MS = 3000

function gathered(pc: RTCPeerConnection): Promise<void> {
  return new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    const timer = setTimeout(resolve, GATHERING_MS)
    pc.addEventListener('icegatheringstatechange', () => {
      if (pc.iceGatheringState !== 'complete') return
      clearTimeout(timer)
      resolve()
    })
  })
}

export interface WebRtcHandlers extends LiveHandlers {
  /** A call that never opened: why (an ApiRequestError, a microphone error, a network error) in `error`. */
  onFailed(error: unknown): void
}

/** Opens a live session over WebRTC (diarization off). */
export function connectLiveWebRtc(
  handlers: WebRtcHandlers,
  devices: Pick<MediaDevices, 'getUserMedia'> = navigator.mediaDevices,
): LiveConnection {
  let pc: RTCPeerConnection | null = null
  let channel: RTCDataChannel | null = null
  let stream: MediaStream | null = null
  let location: string | null = null
  let opened = false
  let over = false

  const release = () => {
    for (const track of stream?.getTracks() ?? []) track.stop()
    stream = null
    channel?.close()
    pc?.close()
    pc = null
  }
  /** The DELETE first, so the service frees the slot at once; closing the peer connection alone ends the call too. */
  const hangUp = async () => {
    const at = location
    location = null
    if (!at?.startsWith('/api/')) return
    await apiFetch(at.slice('/api'.length), { method: 'DELETE' }).catch(() => undefined)
  }
  const end = (code: number, reason: string) => {
    if (over) return
    over = true
    void hangUp().finally(() => {
      release()
      handlers.onClose({ code, reason, opened })
    })
  }
  const fail = (error: unknown) => {
    if (over) return
    over = true
    void hangUp().finally(() => {
      release()
      handlers.onFailed(error)
    })
  }

  void (async () => {
    try {
      stream = await devices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true },
      })
      if (over) return release()
      pc = new RTCPeerConnection({ iceServers: [] })
      for (const track of stream.getAudioTracks()) pc.addTrack(track, stream)
      channel = pc.createDataChannel('oai-events')
      channel.onopen = () => {
        opened = true
        handlers.onOpen()
      }
      channel.onmessage = (message) => {
        if (typeof message.data !== 'string') return
        let data: unknown
        try {
          data = JSON.parse(message.data)
        } catch {
          return
        }
        const parsed = transcriptionEventSchema.safeParse(data)
        if (parsed.success) handlers.onEvent(parsed.data)
      }
      channel.onclose = () => (opened ? end(1000, '') : fail(new Error('The call closed before it opened.')))
      pc.onconnectionstatechange = () => {
        const state = pc?.connectionState
        if (state === 'failed')
          opened
            ? end(1006, 'the connection to the speech service was lost')
            : fail(new Error('The call could not connect to the speech service.'))
      }
      await pc.setLocalDescription(await pc.createOffer())
      await gathered(pc)
      if (over || !pc) return
      const response = await apiFetch('/v1/realtime/calls', {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: pc.localDescription?.sdp ?? '',
      })
      if (response.status !== 201) throw await errorFrom(response)
      location = response.headers.get('location')
      const answer = await response.text()
      // Closed while the answer was on its way: hang up what the service just answered.
      if (over || !pc) return void hangUp()
      await pc.setRemoteDescription({ type: 'answer', sdp: answer })
    } catch (error) {
      fail(error)
    }
  })()

  const send = (event: object) => {
    if (channel?.readyState === 'open') channel.send(JSON.stringify(event))
  }
  return {
    sendAudio: () => {},
    endAudio: () => {
      for (const track of stream?.getAudioTracks() ?? []) track.enabled = false
    },
    commit: () => send({ type: 'input_audio_buffer.commit' }),
    close: () => end(1000, ''),
  }
}
