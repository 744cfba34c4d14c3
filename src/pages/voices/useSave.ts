import { useEffect, useReducer, useRef, useState } from 'react'
import type { BackoffPolicy } from '../../../core/retry-after.ts'
import { withCapacityRetry } from '../../api/capacity-retry.ts'
import type { ApiRequestError, UploadProgress } from '../../api/http.ts'
import type { Failure } from './failures.ts'
import {
  ANSWER_LIMIT_MS,
  IDLE,
  nextSave,
  type SaveState,
  type SaveStatus,
  type SaveWords,
  saveStatus,
} from './save-progress.ts'

/** One save, as a form hands it over. */
export interface SaveJob<T> {
  /** One attempt of the request, reporting its upload and stopped by `signal`. */
  send(opts: { onProgress: (progress: UploadProgress) => void; signal: AbortSignal }): Promise<T>
  /** After it succeeded: clears the form and says what was saved. */
  saved(result: T): Promise<string>
  /** After it failed: what went wrong and what to do. */
  failed(err: unknown): Failure
}

/** A refusal that may pass (the service busy), waited out visibly and tried again. */
export interface BusyRetry {
  when(err: unknown): err is ApiRequestError
  policy: BackoffPolicy & { maxAttempts: number }
  /** The wait, in plain words ("The service is busy creating other voices."). */
  reason: string
  /** When the last attempt was refused too. */
  gaveUp: Failure
}

export interface Save {
  state: SaveState
  /** The clock the state is read against, ticking while a save runs. */
  now: number
  status: SaveStatus | null
  busy: boolean
  failure: Failure | null
  /** Saved, cancelled, or waiting to try again: for the form's polite live region. */
  message: string
  retry: BusyRetry | undefined
  start<T>(job: SaveJob<T>): void
  /** Stops the request or the wait; nothing more happens to this save. */
  cancel(): void
  /** Ends a busy wait now and tries again. */
  retryNow(): void
}

interface Running {
  /** Aborts the request or the wait: Cancel, an overdue answer, leaving the page. */
  controller: AbortController
  /** Whether a request is out (rather than a busy wait between two). */
  sending: boolean
  /** Ends the busy wait under way, when there is one ("Retry now"). */
  skip: (() => void) | null
  /** The attempt whose wait has been announced (a wait reports every second; it is announced once). */
  announced: number
}

/**
 * Runs a consent's or a voice's save: its upload, the wait for the answer, a busy service's wait and retry, Cancel
 * at any moment, and an end with a message when the answer is overdue (save-progress.ts says why each exists).
 * `what` names the thing saved in messages ("the voice"); `refresh` reloads the lists after a cancelled or
 * abandoned save, since the service may have finished it all the same.
 */
export function useSave(what: string, words: SaveWords, refresh: () => void, retry?: BusyRetry): Save {
  const [state, dispatch] = useReducer(nextSave, IDLE)
  const [now, setNow] = useState(() => Date.now())
  const [failure, setFailure] = useState<Failure | null>(null)
  const [message, setMessage] = useState('')
  const running = useRef<Running | null>(null)
  const busy = state.step !== 'idle'

  function stop(): Running | null {
    const run = running.current
    running.current = null
    run?.controller.abort()
    return run
  }

  /** The save: its attempts and the busy waits between them, through the one retry helper (capacity-retry.ts). */
  async function run(job: SaveJob<unknown>) {
    const run: Running = { controller: new AbortController(), sending: true, skip: null, announced: 1 }
    running.current = run
    const current = () => running.current === run
    const { signal } = run.controller
    try {
      const result = await withCapacityRetry(
        () => {
          run.sending = true
          return job.send({
            onProgress: (p) => {
              if (current())
                dispatch({
                  type: 'progress',
                  fraction: p.total > 0 ? p.loaded / p.total : 0,
                  now: Date.now(),
                })
            },
            signal,
          })
        },
        {
          signal,
          // Without a busy policy a refusal is final: one attempt.
          ...(retry ? { policy: retry.policy, retryable: retry.when } : { maxAttempts: 1 }),
          onWait: (wait, skip) => {
            if (!current()) return
            run.sending = false
            run.skip = skip
            if (wait.secondsLeft === 0) {
              run.skip = null
              dispatch({ type: 'retry' })
            } else if (run.announced !== wait.attempt) {
              run.announced = wait.attempt
              const nowMs = Date.now()
              setNow(nowMs)
              dispatch({ type: 'busy', delayMs: wait.endsAt - nowMs, now: nowMs })
              setMessage(
                `${retry?.reason ?? ''} Trying again by itself in ${Math.ceil((wait.endsAt - nowMs) / 1000)} seconds.`,
              )
            }
          },
        },
      )
      if (!current()) return
      // Sent and answered: even if the form is cancelled now, the thing is saved, so the form says so.
      run.sending = false
      setMessage(await job.saved(result))
      if (current()) running.current = null
      dispatch({ type: 'end' })
    } catch (err) {
      // Cancelled, overdue, or left: whoever stopped it has said what happens next.
      if (!current()) return
      running.current = null
      setFailure(retry?.when(err) ? retry.gaveUp : job.failed(err))
      dispatch({ type: 'end' })
    }
  }

  // The clock for the countdown, the time waited, and the moment a wait turns long or overdue.
  useEffect(() => {
    if (!busy) return
    setNow(Date.now())
    const tick = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(tick)
  }, [busy])

  // An answer later than any the service should give is not coming: the save ends, saying so.
  const overdue = state.step === 'checking' ? state.since + ANSWER_LIMIT_MS : null
  // biome-ignore lint/correctness/useExhaustiveDependencies: `stop`, `what` and `refresh` are read when the timer fires; the deadline alone decides when it is set.
  useEffect(() => {
    if (overdue === null) return
    const timer = setTimeout(
      () => {
        stop()
        dispatch({ type: 'end' })
        setFailure({
          what: `The service has not answered in ${ANSWER_LIMIT_MS / 60_000} minutes, so the page stopped waiting for ${what}.`,
          next: `Try again. If ${what} appears in the list below after all, the service finished it late; if this keeps happening, look in the studio’s log.`,
        })
        refresh()
      },
      Math.max(0, overdue - Date.now()),
    )
    return () => clearTimeout(timer)
  }, [overdue])

  // Leaving the page stops the request and any wait.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only on unmount; `stop` reads a ref.
  useEffect(() => () => void stop(), [])

  return {
    state,
    now,
    status: saveStatus(state, now, words),
    busy,
    failure,
    message,
    retry,
    start(job) {
      stop()
      setFailure(null)
      setMessage('')
      dispatch({ type: 'start' })
      void run(job as SaveJob<unknown>)
    },
    cancel() {
      const run = stop()
      if (!run) return
      dispatch({ type: 'end' })
      // The request may have reached the service, which may finish it anyway: the lists show the truth.
      setMessage(
        run.sending
          ? `Saving ${what} was cancelled. If the service had already finished, it appears in the list below.`
          : `Saving ${what} was cancelled.`,
      )
      refresh()
    },
    retryNow() {
      running.current?.skip?.()
    },
  }
}
