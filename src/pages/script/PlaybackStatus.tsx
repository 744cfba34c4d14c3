import { explainError } from '../../api/error-text.ts'
import { PlaybackStats } from '../../components/PlaybackStats.tsx'
import { usePlayback } from '../../state/playback.ts'
import { type LinePlan, usePreview } from './preview.ts'

/**
 * The parts of the script page that follow a play as it goes: the Stop button, the status line with any problem,
 * and the Playback panel. Each subscribes to what it shows, so pressing Play re-renders these and not the page: on
 * two cores a render of the whole page after the click kept the main thread from the answer's first audio
 * (bench:studio's "request → headers" stage).
 */

const STATUS_TEXT = {
  idle: 'Ready.',
  streaming: 'Generating…',
  playing: 'Playing…',
  done: 'Finished.',
  stopped: 'Stopped.',
  incomplete: 'The stream broke before it was complete.',
  error: 'Something went wrong.',
} as const

export function StopButton() {
  const busy = usePlayback((s) => s.status === 'streaming' || s.status === 'playing')
  return (
    <button type="button" onClick={() => void usePlayback.getState().stop()} disabled={!busy}>
      Stop
    </button>
  )
}

/** The play's status in words, what went wrong and what to do, and a retry of the lines that broke. */
export function PlaybackStatusLine({ onRetry }: { onRetry: (plans: LinePlan[]) => void }) {
  const status = usePlayback((s) => s.status)
  const failure = usePlayback((s) => (s.status === 'error' || s.status === 'incomplete' ? s.failure : null))
  const wait = usePreview((s) => s.wait)
  const lastPlans = usePreview((s) => s.lastPlans)
  const explained = failure ? explainError(failure) : null
  return (
    <div className="playback-status">
      <p role="status" data-testid="playback-status" className={`status status-${status}`}>
        {wait && wait.secondsLeft > 0
          ? `${wait.reason} Trying again in ${wait.secondsLeft} s (attempt ${wait.attempt} of ${wait.maxAttempts}).`
          : STATUS_TEXT[status]}
      </p>
      {explained && (
        <div role="alert" className="problem">
          <p>
            <strong>{explained.title}</strong> {explained.action}
          </p>
          {lastPlans.length > 0 && (
            <button type="button" onClick={() => onRetry(lastPlans)}>
              Retry as a new take
            </button>
          )}
        </div>
      )}
    </div>
  )
}

/** The Playback panel, re-rendered with the player's counters on its own. */
export function LivePlaybackStats() {
  const stats = usePlayback((s) => s.stats)
  const timeToFirstAudioMs = usePlayback((s) => s.timeToFirstAudioMs)
  return <PlaybackStats stats={stats} timeToFirstAudioMs={timeToFirstAudioMs} />
}
