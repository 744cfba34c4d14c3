import { type BackoffPolicy, backoffDelayMs } from '../../core/retry-after.ts'
import { explainError } from './error-text.ts'
import { ApiRequestError } from './http.ts'

/**
 * The browser's retry of a request the service refused for capacity (contract 7: 429 `rate_limit_exceeded` and
 * `custom_voice_creation_busy`, 503), with a visible countdown. The backend already retries JSON requests upstream
 * (server/studio/proxy/retry.ts) and passes the refusal on only when it gave up; it cannot retry a multipart request (a
 * reference clip), whose body it streamed through. So this wait is the one the user sees, and it follows the same
 * policy: never sooner than Retry-After, a jittered exponential backoff on top, a cap on the attempts.
 *
 * Only a refusal that came before any audio is retried: `attempt` must reject with the ApiRequestError before it
 * starts streaming (as `streamSpeech` does), since a stream that broke later is a new take, never continued.
 */

export interface CapacityWait {
  /** Whole seconds until the next attempt; 0 when the wait is over and that attempt starts. */
  secondsLeft: number
  /** The attempt that follows this wait (the first attempt is 1). */
  attempt: number
  maxAttempts: number
  /** Why it waits, in plain words. */
  reason: string
  /** When the next attempt starts (on the `now` clock). */
  endsAt: number
  /** The error that started this wait. */
  error: ApiRequestError
}

export interface CapacityRetryOptions {
  /** Stops a wait at once; the promise then rejects with the signal's reason. */
  signal?: AbortSignal
  /**
   * Called when a wait starts, each second of it, and with `secondsLeft: 0` when it ends. `skip` ends this wait at
   * once (a "Retry now" button): the next attempt starts.
   */
  onWait?: (info: CapacityWait, skip: () => void) => void
  /** Attempts in all, the first included. */
  maxAttempts?: number
  /** The backoff (base and cap; with `maxAttempts` unless that is given) when not CAPACITY_RETRY_POLICY. */
  policy?: BackoffPolicy & { maxAttempts: number }
  /** Which refusals are waited out and tried again; by default `isCapacityError`. */
  retryable?: (err: unknown) => err is ApiRequestError
  now?: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
}

/**
 * The backend's base is 1 s and its cap 8 s; the browser's wait comes after the backend's own attempts, so it starts
 * longer.
 */
export const CAPACITY_RETRY_POLICY = { maxAttempts: 3, baseMs: 2000, capMs: 16_000 } as const

/** A refusal for capacity that may pass. A 503 for missing speech recognition will not, so it is not one. */
export function isCapacityError(err: unknown): err is ApiRequestError {
  if (!(err instanceof ApiRequestError)) return false
  if (err.status === 429)
    return err.code === 'rate_limit_exceeded' || err.code === 'custom_voice_creation_busy'
  return err.status === 503 && err.code !== 'recognition_unavailable'
}

/**
 * How long to wait before retry number `retry` (1 for the first): the shared backoff (core/retry-after.ts) above
 * Retry-After, 1 s when absent as the backend assumes.
 */
export function capacityDelayMs(
  retry: number,
  retryAfterSeconds: number | null,
  random = Math.random,
  policy: BackoffPolicy = CAPACITY_RETRY_POLICY,
): number {
  return backoffDelayMs(retry, (retryAfterSeconds ?? 1) * 1000, policy, random)
}

function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const stop = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop)
      resolve()
    }, ms)
    signal?.addEventListener('abort', stop, { once: true })
  })
}

export async function withCapacityRetry<T>(
  attempt: () => Promise<T>,
  opts: CapacityRetryOptions = {},
): Promise<T> {
  const { signal, onWait } = opts
  const policy = opts.policy ?? CAPACITY_RETRY_POLICY
  const maxAttempts = opts.maxAttempts ?? policy.maxAttempts
  const retryable = opts.retryable ?? isCapacityError
  const now = opts.now ?? Date.now
  const sleep = opts.sleep ?? sleepUnlessAborted
  for (let number = 1; ; number++) {
    signal?.throwIfAborted()
    try {
      return await attempt()
    } catch (err) {
      if (!retryable(err) || number >= maxAttempts || signal?.aborted) throw err
      const until = now() + capacityDelayMs(number, err.retryAfterSeconds, opts.random, policy)
      const info = {
        attempt: number + 1,
        maxAttempts,
        reason: explainError(err).title,
        endsAt: until,
        error: err,
      }
      let skipped = false
      let wake = () => {}
      const skip = () => {
        skipped = true
        wake()
      }
      for (let left = until - now(); left > 0 && !skipped; left = until - now()) {
        const secondsLeft = Math.ceil(left / 1000)
        onWait?.({ ...info, secondsLeft }, skip)
        if (skipped) break
        // Wake when the shown number changes, so the countdown steps once a second; or at once when skipped.
        await Promise.race([
          sleep(left - (secondsLeft - 1) * 1000, signal),
          new Promise<void>((resolve) => {
            wake = resolve
          }),
        ])
        signal?.throwIfAborted()
      }
      onWait?.({ ...info, secondsLeft: 0 }, skip)
    }
  }
}
