import { useState } from 'react'
import { SPEAKER_COUNT_MAX, SPEAKER_COUNT_MIN } from '../../../schema/index.ts'
import { Enriched } from './Enriched.tsx'
import { DIARIZATION_STATUS_TEXT, type LiveItem, visibleItems } from './live.ts'
import { type LiveStatus, type LiveTransport, useLive } from './live-store.ts'

const STATUS_TEXT: Record<LiveStatus, string> = {
  idle: 'Not listening.',
  starting: 'Opening the session and the microphone…',
  listening: 'Listening.',
  stopping: 'Finishing the last turn…',
  stopped: 'Stopped.',
  error: '',
}

function speakerLabel(item: LiveItem, diarizing: boolean): string {
  if (item.speaker === undefined) return diarizing ? (item.completed ? 'Speaker…' : '…') : ''
  return item.speaker ?? 'Unattributed'
}

/** Why WebRTC is not offered with speaker labels on (the service refuses diarization on that transport). */
export const WEBRTC_NEEDS_NO_LABELS =
  'Speaker labels need the WebSocket: the service does not attribute speakers over WebRTC. Turn them off to use WebRTC.'

/**
 * Live transcription from the microphone with speaker labels: the backend opens the session (minting the service's
 * ephemeral credential with these settings) and relays it, over its socket or as a WebRTC call. Words appear as they
 * come; each turn gets its speaker when the service's speakers event for it arrives (socket only).
 */
export function LivePanel() {
  const { status, session, error, sentSeconds, start, stop } = useLive()
  const [diarization, setDiarization] = useState(true)
  const [maxSpeakers, setMaxSpeakers] = useState('4')
  const [chosen, setTransport] = useState<LiveTransport>('websocket')
  // Speaker labels are a socket feature: with them on, the session goes over the socket whatever was chosen.
  const transport: LiveTransport = diarization ? 'websocket' : chosen
  const busy = status === 'starting' || status === 'listening' || status === 'stopping'
  const requested = Number(maxSpeakers)
  const valid =
    /^\d+$/.test(maxSpeakers.trim()) && requested >= SPEAKER_COUNT_MIN && requested <= SPEAKER_COUNT_MAX
  const d = session.diarization
  const items = visibleItems(session.items, status === 'stopped' || status === 'error')
  return (
    <section aria-labelledby="live-heading" className="panel live">
      <h2 id="live-heading">Live from the microphone</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          if (!valid && diarization) return
          void start({ diarization, maxSpeakers: diarization ? requested : undefined, transport })
        }}
        noValidate
      >
        <fieldset disabled={busy}>
          <legend>Speakers</legend>
          <label className="check">
            <input type="checkbox" checked={diarization} onChange={(e) => setDiarization(e.target.checked)} />
            Label speakers (diarization)
          </label>
          {diarization && (
            <div className="field">
              <label htmlFor="live-max-speakers">At most this many speakers</label>
              <input
                id="live-max-speakers"
                className="count"
                inputMode="numeric"
                value={maxSpeakers}
                onChange={(e) => setMaxSpeakers(e.target.value)}
                aria-invalid={valid ? undefined : true}
                aria-describedby={valid ? undefined : 'live-max-error'}
              />
              {!valid && (
                <p id="live-max-error" className="field-error">
                  Enter a whole number from {SPEAKER_COUNT_MIN} to {SPEAKER_COUNT_MAX}.
                </p>
              )}
            </div>
          )}
        </fieldset>
        <div className="live-transport" role="radiogroup" aria-labelledby="live-transport-label">
          <span id="live-transport-label" className="live-transport-label">
            Transport
          </span>
          <label className="check">
            <input
              type="radio"
              name="live-transport"
              value="websocket"
              checked={transport === 'websocket'}
              disabled={busy}
              onChange={() => setTransport('websocket')}
            />
            WebSocket
          </label>
          <label className="check">
            <input
              type="radio"
              name="live-transport"
              value="webrtc"
              checked={transport === 'webrtc'}
              disabled={busy || diarization}
              aria-describedby={diarization ? 'live-transport-why' : undefined}
              onChange={() => setTransport('webrtc')}
            />
            WebRTC
          </label>
          {diarization && (
            <p id="live-transport-why" className="live-transport-why">
              {WEBRTC_NEEDS_NO_LABELS}
            </p>
          )}
          {transport === 'webrtc' && (
            <p className="live-transport-why">
              The microphone goes straight to the speech service; the session is not kept among the saved
              transcripts.
            </p>
          )}
        </div>
        <div className="buttons">
          <button type="submit" disabled={busy}>
            Start listening
          </button>
          <button type="button" onClick={() => void stop()} disabled={status !== 'listening'}>
            Stop
          </button>
        </div>
      </form>
      <p role="status" className={`status status-${status === 'error' ? 'error' : 'idle'}`}>
        {status === 'error' ? error : STATUS_TEXT[status]}
        {status === 'listening' && ` ${sentSeconds} s sent.`}
        {session.speaking && status === 'listening' && ' Hearing speech.'}
      </p>
      {d && (
        <p className="live-diarization" data-testid="live-diarization" data-status={d.status ?? 'pending'}>
          {d.status ? DIARIZATION_STATUS_TEXT[d.status] : 'Speaker labels: waiting for the session to say.'}
          {d.maxSpeakersRequested !== null &&
            d.maxSpeakers !== null &&
            ` At most ${d.maxSpeakers} speakers (${d.maxSpeakersRequested} was asked for).`}
        </p>
      )}
      {session.error && status !== 'error' && (
        <p className="field-error">The service said: {session.error}</p>
      )}
      {items.length > 0 && (
        <div role="log" aria-label="Live transcript">
          <ol className="live-items">
            {items.map((item) => (
              <li
                key={item.id}
                className={item.completed ? 'live-final' : 'live-partial'}
                data-speaker={item.speaker ?? ''}
              >
                {d?.enabled && <span className="live-speaker">{speakerLabel(item, true)}</span>}
                <span className="live-text">
                  {item.speakerText ? <Enriched text={item.speakerText} /> : item.text || '…'}
                </span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  )
}
