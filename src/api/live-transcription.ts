import { openBridgeSocket } from './bridge-socket.ts'
import { transcriptionEventSchema } from './transcripts.ts'

/**
 * Live transcription from the microphone through the studio backend's socket bridge (`/api/v1/realtime`,
 * `server/studio/live/transcription.ts`): the backend mints the service's ephemeral credential with the session's
 * diarization settings and relays the socket, so the browser never holds a key.
 */

/** Base64 of PCM16 samples' bytes (little-endian, as typed arrays are on every browser platform). */
function pcm16ToBase64(pcm: Int16Array): string {
  const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** A live transcription session through the backend: its socket bridge, or a WebRTC call (live-webrtc.ts). */
export interface LiveConnection {
  /** 24 kHz mono PCM16 from the microphone (the socket; a WebRTC call streams its own track). */
  sendAudio(pcm: Int16Array): void
  /** Stops sending the microphone while the last turns finish (WebRTC: the track is muted; the socket: nothing). */
  endAudio?(): void
  /** Ends the current turn now (the service also ends turns by itself). */
  commit(): void
  close(): void
}

export interface LiveHandlers {
  onOpen(): void
  onEvent(event: { type: string } & Record<string, unknown>): void
  /** `opened` tells a session that ended from one that never started (refused or unreachable). */
  onClose(info: { code: number; reason: string; opened: boolean }): void
}

/** Opens a live session with these diarization settings. */
export function connectLiveTranscription(
  settings: { diarization: boolean; maxSpeakers?: number },
  handlers: LiveHandlers,
): LiveConnection {
  const query = new URLSearchParams({ diarization: String(settings.diarization) })
  if (settings.maxSpeakers !== undefined) query.set('max_speakers', String(settings.maxSpeakers))
  const { socket, send } = openBridgeSocket('/v1/realtime', query, {
    onOpen: () => handlers.onOpen(),
    onMessage: (data) => {
      const parsed = transcriptionEventSchema.safeParse(data)
      if (parsed.success) handlers.onEvent(parsed.data)
    },
    onClose: (info) => handlers.onClose(info),
  })
  return {
    sendAudio: (pcm) => send({ type: 'input_audio_buffer.append', audio: pcm16ToBase64(pcm) }),
    commit: () => send({ type: 'input_audio_buffer.commit' }),
    close: () => socket.close(1000),
  }
}
