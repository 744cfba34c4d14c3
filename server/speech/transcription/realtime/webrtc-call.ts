/**
 * One WebRTC call's media and events (contract 4.11; docs/transcription.md "WebRTC"): the browser's offer answered
 * with host candidates on the configured addresses only; its audio track decoded by libwebrtc (@roamhq/wrtc: Opus,
 * jitter buffer, loss concealment) into PCM16 frames; the data channel the browser opens carries the session's JSON
 * events both ways. The call ends once: hang-up, the channel or the peer connection closing, ICE failing or staying
 * disconnected (the peer vanished), or never connecting.
 */
import wrtc from '@roamhq/wrtc'

export interface CallNetwork {
  /** Addresses the answer offers as host candidates. */
  addresses: readonly string[]
  /** The UDP ports a call may use (inclusive). */
  portRange?: { min: number; max: number }
  /** A call not connected by then ends. */
  connectTimeoutMs: number
  /** A connection disconnected for this long ends: ICE consent checks stopped being answered. */
  disconnectedTimeoutMs: number
}

export const DEFAULT_CALL_NETWORK: CallNetwork = {
  addresses: ['127.0.0.1'],
  connectTimeoutMs: 30_000,
  disconnectedTimeoutMs: 15_000,
}

/** The offer could not be answered: not SDP libwebrtc accepts, or no audio to receive. */
export class OfferRefusedError extends Error {
  override name = 'OfferRefusedError'
}

export interface CallEvents {
  /** Decoded audio of the call's first audio track, 10 ms at a time. */
  audio(samples: Int16Array, rate: number): void
  /** A text message on the data channel. */
  message(data: string): void
  /** The call ended (once), with why. */
  ended(reason: string): void
}

/** Ends of a call that are the peer's doing or the network's, not the service's. */
export type CallEndReason =
  | 'hang_up'
  | 'peer_closed'
  | 'ice_failed'
  | 'peer_vanished'
  | 'never_connected'
  | 'server'

const GATHERING_MS = 2000
const CANDIDATE = /^a=candidate:\S+ \d+ \S+ \d+ (\S+) /

export class WebRtcCall {
  private channel: RTCDataChannel | null = null
  /** Events sent before the browser's channel opened, delivered when it does. */
  private readonly pending: string[] = []
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private sink: { stop(): void } | null = null
  private over = false

  private constructor(
    private readonly pc: RTCPeerConnection,
    private readonly events: CallEvents,
    readonly answer: string,
  ) {}

  /** Answers `offer`; the call then runs until it ends (events.ended). */
  static async answer(offer: string, network: CallNetwork, events: CallEvents): Promise<WebRtcCall> {
    const pc = new wrtc.RTCPeerConnection({
      iceServers: [],
      ...(network.portRange ? { portRange: network.portRange } : {}),
    } as RTCConfiguration)
    try {
      try {
        await pc.setRemoteDescription({ type: 'offer', sdp: offer })
      } catch (err) {
        throw new OfferRefusedError(`The offer is not SDP this service can answer: ${(err as Error).message}`)
      }
      const audio = pc.getTransceivers().find((t) => t.receiver.track?.kind === 'audio')
      if (!audio) throw new OfferRefusedError('The offer has no audio to send.')
      await pc.setLocalDescription(await pc.createAnswer())
      await gathered(pc)
      const answer = onlyAddresses(pc.localDescription?.sdp ?? '', network.addresses)
      const call = new WebRtcCall(pc, events, answer)
      call.watch(audio.receiver.track, network)
      return call
    } catch (err) {
      pc.close()
      throw err
    }
  }

  /** Sends one event on the data channel (held until the browser's channel opens). */
  send(data: string) {
    if (this.over) return
    if (this.channel?.readyState === 'open') this.deliver(this.channel, data)
    else this.pending.push(data)
  }

  /** A channel can close between the check and the send (the peer leaving as it opens): that ends the call, no throw. */
  private deliver(channel: RTCDataChannel, data: string) {
    try {
      channel.send(data)
    } catch {
      this.end('peer_closed')
    }
  }

  end(reason: CallEndReason) {
    if (this.over) return
    this.over = true
    for (const timer of this.timers) clearTimeout(timer)
    this.sink?.stop()
    this.pc.close()
    this.events.ended(reason)
  }

  private watch(track: MediaStreamTrack, network: CallNetwork) {
    const sink = new wrtc.nonstandard.RTCAudioSink(track)
    this.sink = sink
    sink.ondata = (frame: { samples: Int16Array; sampleRate: number; channelCount?: number }) => {
      if (!this.over) this.events.audio(mono(frame.samples, frame.channelCount ?? 1), frame.sampleRate)
    }
    this.pc.ondatachannel = ({ channel }) => {
      if (this.channel) return channel.close()
      this.channel = channel
      channel.onopen = () => {
        for (const data of this.pending.splice(0)) if (!this.over) this.deliver(channel, data)
      }
      channel.onmessage = ({ data }) => {
        if (typeof data === 'string') this.events.message(data)
        else this.events.message(Buffer.from(data as ArrayBuffer).toString('utf8'))
      }
      channel.onclose = () => this.end('peer_closed')
    }
    const connecting = this.after(network.connectTimeoutMs, () => this.end('never_connected'))
    let disconnected: ReturnType<typeof setTimeout> | null = null
    this.pc.onconnectionstatechange = () => {
      const state = this.pc.connectionState
      if (state === 'connected') {
        clearTimeout(connecting)
        if (disconnected) clearTimeout(disconnected)
        disconnected = null
      } else if (state === 'disconnected' && !disconnected) {
        disconnected = this.after(network.disconnectedTimeoutMs, () => this.end('peer_vanished'))
      } else if (state === 'failed') this.end('ice_failed')
      else if (state === 'closed') this.end('peer_closed')
    }
  }

  private after(ms: number, then: () => void) {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      then()
    }, ms)
    this.timers.add(timer)
    return timer
  }
}

/** Resolves once ICE gathering is complete, or after GATHERING_MS with what was gathered. */
function gathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, GATHERING_MS)
    pc.onicegatheringstatechange = () => {
      if (pc.iceGatheringState !== 'complete') return
      clearTimeout(timer)
      resolve()
    }
  })
}

/** The answer with only the host candidates on `addresses` (libwebrtc gathers on every interface). */
export function onlyAddresses(sdp: string, addresses: readonly string[]): string {
  const allowed = new Set(addresses)
  const lines = sdp.split(/\r?\n/).filter((line) => {
    const candidate = CANDIDATE.exec(line)
    return !candidate || allowed.has(candidate[1] as string)
  })
  return lines.join('\r\n')
}

function mono(samples: Int16Array, channels: number): Int16Array {
  if (channels === 1) return samples
  const out = new Int16Array(Math.floor(samples.length / channels))
  for (let i = 0; i < out.length; i++) {
    let sum = 0
    for (let c = 0; c < channels; c++) sum += samples[i * channels + c] as number
    out[i] = Math.round(sum / channels)
  }
  return out
}
