import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Recognizer } from '../../../engine/recognition/recognizer.ts'
import type { GateOptions, StreamingVad } from '../../../engine/vad/index.ts'
import type { SlotPool } from '../../limits/slots.ts'
import type { SttSettings } from './stt-config.ts'
import { type SessionSpeakerTracker, SttSession, type SttSocket } from './stt-session.ts'

/** What a realtime recognition session needs, whichever transport carries it (the socket or a WebRTC call). */
export interface SessionDeps {
  recognizer: Recognizer
  createVad(opts: GateOptions): Promise<StreamingVad>
  asrSlots: SlotPool
  /** Every live session, for tests and shutdown. */
  sessions?: Set<SttSession>
}

export interface OpenSession {
  session: SttSession
  /** Disposes the session and gives its slot back; later calls do nothing. */
  end(): void
}

/**
 * A session holding one of its owner's ASR slots, or null when all are taken: a live session never waits for a slot
 * (contract 4.11), each transport refuses in its own way.
 */
export async function openSttSession(
  deps: SessionDeps,
  transport: SttSocket,
  opts: {
    ownerId: string
    settings: SttSettings
    createTracker:
      | ((opts: { maxSpeakers: number }) => SessionSpeakerTracker | Promise<SessionSpeakerTracker>)
      | null
    log: FastifyBaseLogger
  },
): Promise<OpenSession | null> {
  const acquired = await deps.asrSlots.acquire(opts.ownerId, 0)
  if (!('slot' in acquired)) return null
  const { slot } = acquired
  const session = new SttSession(transport, {
    recognizer: deps.recognizer,
    createVad: deps.createVad,
    createTracker: opts.createTracker,
    settings: opts.settings,
    id: `sess_${randomBytes(12).toString('hex')}`,
    onError: (err, what) => opts.log.warn({ err }, `${what} failed`),
  })
  deps.sessions?.add(session)
  let ended = false
  return {
    session,
    end() {
      if (ended) return
      ended = true
      session.dispose()
      deps.sessions?.delete(session)
      slot.release()
    },
  }
}
