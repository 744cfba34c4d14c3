import { z } from 'zod'
import {
  DECODING_FIELDS,
  speechAudioDeltaSchema,
  speechAudioDoneSchema,
  type Usage,
  type VoiceSettings,
} from '../../schema/index.ts'
import { openBridgeSocket } from './bridge-socket.ts'
import { pcm16FromBase64 } from './speech.ts'

/**
 * Live speech: the text-input speech socket (contract 4.10, docs/realtime-tts.md) through the studio backend's bridge
 * (`/api/v1/tts/realtime`), which adds its key: the browser never holds one.
 */

/** An `error` event of the session (docs/realtime-tts.md), e.g. `rate_limit_exceeded` at capacity (6.3). */
export interface LiveSpeechProblem {
  code: string
  message: string
}

export interface LiveSpeechHandlers {
  onOpen(): void
  /** 24 kHz mono PCM16, in order. */
  onAudio(pcm: Int16Array): void
  /** `speech.audio.done`: the output is complete. */
  onDone(usage: Usage): void
  onError(problem: LiveSpeechProblem): void
  /** `opened` tells a session that ended from one that never started (refused or unreachable). */
  onClose(info: { code: number; reason: string; opened: boolean }): void
}

export interface LiveSpeechConnection {
  append(text: string): void
  /** Speaks what the service holds now, even without a phrase ending. */
  commit(): void
  /** No more text: the service speaks the rest, sends `speech.audio.done` and closes. */
  done(): void
  close(): void
}

/** A live session that ended before `speech.audio.done`; `code` is the service's error code if it sent one. */
export class LiveSpeechError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

const liveSpeechEventSchema = z.discriminatedUnion('type', [
  speechAudioDeltaSchema,
  speechAudioDoneSchema,
  z.object({ type: z.literal('error'), error: z.object({ code: z.string(), message: z.string() }) }),
])

/**
 * Opens the socket with these settings. Only the settings that are set travel, so omitted decoding controls come
 * from the mode's preset (2.8 rule 1).
 */
export function connectLiveSpeech(
  settings: VoiceSettings,
  handlers: LiveSpeechHandlers,
): LiveSpeechConnection {
  // Saved voices travel as their `voice_<id>`, as the settings hold them.
  const query = new URLSearchParams({ model: settings.model, voice: settings.voice, response_format: 'pcm' })
  for (const name of ['speed', 'mode', ...DECODING_FIELDS] as const) {
    const value = settings[name]
    if (value !== undefined) query.set(name, String(value))
  }
  const { socket, send } = openBridgeSocket('/v1/tts/realtime', query, {
    onOpen: () => handlers.onOpen(),
    onMessage: (data) => {
      const event = liveSpeechEventSchema.safeParse(data)
      if (!event.success) return
      if (event.data.type === 'speech.audio.delta') handlers.onAudio(pcm16FromBase64(event.data.audio))
      else if (event.data.type === 'speech.audio.done') handlers.onDone(event.data.usage)
      else handlers.onError(event.data.error)
    },
    onClose: (info) => handlers.onClose(info),
  })
  return {
    append: (text) => send({ type: 'input_text.append', text }),
    commit: () => send({ type: 'input_text.commit' }),
    done: () => send({ type: 'input_text.done' }),
    close: () => socket.close(1000),
  }
}
