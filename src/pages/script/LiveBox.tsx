import { useEffect, useRef, useState } from 'react'
import { SECOND_GEN_MODEL, type VoiceSettings } from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import {
  connectLiveSpeech,
  type LiveSpeechConnection,
  LiveSpeechError,
  type LiveSpeechProblem,
} from '../../api/live-speech.ts'
import { prebufferFor, type StreamSource, usePlayback } from '../../state/playback.ts'
import {
  EMPTY_LIVE_TEXT,
  editLiveText,
  idleDeadline,
  type LiveStep,
  type LiveText,
  takePhrases,
  takeRest,
  unlockLiveText,
} from './live-text.ts'
import './live.css'

type Phase = 'idle' | 'connecting' | 'live' | 'finishing' | 'done' | 'stopped' | 'error'

const PHASE_TEXT: Record<Exclude<Phase, 'error'>, string> = {
  idle: 'Not connected. Press Start live: each complete phrase is spoken as soon as it is written.',
  connecting: 'Connecting to the speech service…',
  live: 'Live: complete phrases are spoken as you write.',
  finishing: 'Finishing: speaking the rest…',
  done: 'Finished: everything written was spoken.',
  stopped: 'Stopped.',
}

/** How much of the sent text the preview shows before the boundary. */
const PREVIEW_SENT_CHARS = 120

/** The session as a playback source: audio to the sink until `speech.audio.done`; Stop closes the socket. */
function liveSource(
  settings: VoiceSettings,
  onOpen: (connection: LiveSpeechConnection) => void,
): StreamSource {
  return (sink, signal) =>
    new Promise<void>((resolve, reject) => {
      let problem: LiveSpeechProblem | null = null
      let done = false
      const connection = connectLiveSpeech(settings, {
        onOpen: () => onOpen(connection),
        onAudio: (pcm) => sink.push(pcm),
        onDone: () => {
          done = true
          resolve()
        },
        onError: (p) => {
          problem = p
        },
        onClose: ({ code, reason, opened }) => {
          if (done) return
          if (problem) reject(new LiveSpeechError(problem.code, problem.message))
          else if (!opened)
            reject(
              new Error(
                'The studio could not open a live session (the speech service refused it or is not running).',
              ),
            )
          else {
            const why = [code, reason].filter(Boolean).join(': ')
            reject(new Error(`The live session closed before the speech was complete (${why}). Start again.`))
          }
        },
      })
      if (signal.aborted) connection.close()
      else signal.addEventListener('abort', () => connection.close(), { once: true })
    })
}

/** Where sending stands in a session; outside one, what Start will do with the box. */
function countsText(live: LiveText, active: boolean): string {
  const n = (count: number) => count.toLocaleString('en')
  if (active) {
    const lock = live.sent > 0 ? ' (sent text is locked until the session ends)' : ''
    return `Sent: ${n(live.sent)} characters · waiting: ${n(live.text.length - live.sent)}${lock}`
  }
  if (!live.text) return 'With Start live, each complete phrase is spoken as soon as it is written.'
  return `${n(live.text.length)} characters. Start live speaks them from the beginning, then what you write next.`
}

/** The service's error events are explained like every other failure (error-text.ts); our own closes as they are. */
function failureText(err: unknown): string {
  if (!(err instanceof LiveSpeechError)) return (err as Error).message
  const { title, action } = explainError(err)
  return `${title} ${action}`
}

/**
 * Live mode: the designer writes or pastes and hears it as it is written. Complete phrases go out on the
 * text-input socket through the backend (live-text.ts decides what and when); sent text is locked until the
 * session ends.
 */
export function LiveBox({ settings }: { settings: VoiceSettings }) {
  const [live, setLive] = useState<LiveText>(EMPTY_LIVE_TEXT)
  const [phase, setPhase] = useState<Phase>('idle')
  const [error, setError] = useState<string | null>(null)
  const playing = usePlayback((s) => s.status === 'streaming' || s.status === 'playing')
  // The source of truth for handlers and timers; `live` is its copy for rendering.
  const liveRef = useRef(live)
  const session = useRef<{ connection: LiveSpeechConnection | null } | null>(null)
  const idleTimer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const supported = settings.model === SECOND_GEN_MODEL
  const active = phase === 'connecting' || phase === 'live' || phase === 'finishing'

  const update = (next: LiveText) => {
    liveRef.current = next
    setLive(next)
  }

  /** Sends what a step released, then waits for the next pause in typing if a short sentence is waiting. */
  const step = ({ live: next, appends }: LiveStep) => {
    const connection = session.current?.connection
    for (const text of appends) connection?.append(text)
    update(next)
    clearTimeout(idleTimer.current)
    const deadline = idleDeadline(next)
    if (connection && deadline !== null)
      idleTimer.current = setTimeout(
        () => step(takePhrases(liveRef.current, performance.now())),
        deadline - performance.now(),
      )
  }

  useEffect(
    () => () => {
      clearTimeout(idleTimer.current)
      if (session.current) void usePlayback.getState().stop()
    },
    [],
  )

  const start = () => {
    const mine: { connection: LiveSpeechConnection | null } = { connection: null }
    session.current = mine
    update(unlockLiveText(liveRef.current))
    setError(null)
    setPhase('connecting')
    const end = (next: Phase, message: string | null = null) => {
      if (session.current !== mine) return
      session.current = null
      clearTimeout(idleTimer.current)
      update(unlockLiveText(liveRef.current))
      setPhase(next)
      setError(message)
    }
    const open = liveSource(settings, (connection) => {
      if (session.current !== mine) return connection.close()
      mine.connection = connection
      setPhase('live')
      // What was written before Start goes out at once.
      step(takePhrases(liveRef.current, performance.now()))
    })
    const source: StreamSource = async (sink, signal) => {
      try {
        await open(sink, signal)
        end('done')
      } catch (err) {
        if (signal.aborted) end('stopped')
        else end('error', failureText(err))
        throw err
      }
    }
    usePlayback
      .getState()
      .playSource(source, { prebufferMs: prebufferFor(liveRef.current.text) })
      .catch((err: unknown) => end('error', `Audio playback could not start: ${(err as Error).message}`))
  }

  const finish = () => {
    const connection = session.current?.connection
    if (!connection) return
    clearTimeout(idleTimer.current)
    const { live: next, appends } = takeRest(liveRef.current)
    for (const text of appends) connection.append(text)
    connection.done()
    update(next)
    setPhase('finishing')
  }

  const sentText = live.text.slice(0, live.sent)
  const pendingText = live.text.slice(live.sent)

  return (
    <section aria-labelledby="live-box-heading" className="live-box">
      <h2 id="live-box-heading">Live: hear it as you write</h2>
      {!supported && (
        <p id="live-box-model" className="live-box-hint">
          Live mode needs the second-generation model ({SECOND_GEN_MODEL}); {settings.model} cannot speak text
          as it is written. Choose {SECOND_GEN_MODEL} to use it.
        </p>
      )}
      <label htmlFor="live-box-text">Live text</label>
      <textarea
        id="live-box-text"
        value={live.text}
        rows={6}
        readOnly={phase === 'finishing'}
        aria-describedby="live-box-counts live-box-notice"
        onChange={(e) => {
          const edited = editLiveText(liveRef.current, e.target.value, performance.now())
          if (session.current?.connection) step(takePhrases(edited, performance.now()))
          else update(edited)
        }}
      />
      <p id="live-box-counts" className="live-box-counts">
        {countsText(live, active)}
      </p>
      {live.text && active && (
        <p className="live-box-preview" aria-hidden="true">
          {sentText && (
            <span className="live-box-sent">
              {sentText.length > PREVIEW_SENT_CHARS ? '…' : ''}
              {sentText.slice(-PREVIEW_SENT_CHARS)}
            </span>
          )}
          <span className="live-box-pending">{pendingText}</span>
        </p>
      )}
      <p id="live-box-notice" className="live-box-notice" aria-live="polite">
        {live.notice}
      </p>
      <div className="buttons">
        <button
          type="button"
          className="live-box-start"
          onClick={start}
          disabled={!supported || active}
          aria-describedby={supported ? undefined : 'live-box-model'}
        >
          Start live
        </button>
        <button type="button" onClick={finish} disabled={phase !== 'live'}>
          Finish
        </button>
        <button
          type="button"
          onClick={() => void usePlayback.getState().stop()}
          disabled={!active && !(phase === 'done' && playing)}
        >
          Stop live
        </button>
      </div>
      <p role="status" className={`status status-${phase === 'error' ? 'error' : 'idle'}`}>
        {phase === 'error' ? error : PHASE_TEXT[phase]}
      </p>
    </section>
  )
}
