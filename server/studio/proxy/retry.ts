/**
 * The backend's retry policy for upstream answers that came before any streaming (contract 7, client behaviour): on 429
 * wait at least Retry-After, growing the wait exponentially with jitter; on 503 honour Retry-After; both capped in
 * attempts and in total time. A response that started streaming is never retried (its status was 200), and neither
 * is a request whose body was streamed through (multipart uploads, JSON over 256 KiB), since it cannot be sent again;
 * small JSON bodies (every speech request) are held so they can be (replayable-body.ts).
 */
import { type BackoffPolicy, backoffDelayMs, parseRetryAfterMs } from '../../../core/retry-after.ts'

/** The backoff (`baseMs`, `capMs`) is the shared one of core/retry-after.ts; this adds the backend's caps. */
export interface RetryPolicy extends BackoffPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number
  /** No retry is started that would end its wait after this long since the first attempt. */
  maxTotalMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  maxTotalMs: 20_000,
  baseMs: 1000,
  capMs: 8000,
}

/**
 * What @fastify/reply-from really gives its `retryDelay` handler: the low-level request it sent and the response it
 * got (its type declarations name Fastify's request and reply instead; index.js passes these).
 */
interface SentAttempt {
  req: { body?: unknown }
  res?: {
    statusCode: number
    headers: Record<string, string | string[] | undefined>
    stream?: { destroy(): void }
  }
  attempt: number
}

/** Retry-After in milliseconds; 1 s when absent or unreadable (the contract's usual value). */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number {
  return parseRetryAfterMs(header, now) ?? 1000
}

const replayable = (body: unknown) =>
  body === undefined || body === null || typeof body === 'string' || Buffer.isBuffer(body)

/** The delay before the next attempt, or null to pass the answer on as it is. */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  status: number,
  retryAfter: string | string[] | undefined,
  elapsedMs: number,
  random = Math.random,
): number | null {
  if (status !== 429 && status !== 503) return null
  if (attempt + 1 >= policy.maxAttempts) return null
  const floor = retryAfterMs(retryAfter)
  // 429: the shared backoff above the floor (`attempt` counts from 0, retries from 1). 503 says when to come back,
  // so only a little jitter is added, enough that clients refused together do not return in the same millisecond.
  const delay =
    status === 429
      ? backoffDelayMs(attempt + 1, floor, policy, random)
      : Math.round(floor + random() * Math.min(floor, policy.baseMs) * 0.25)
  return elapsedMs + delay > policy.maxTotalMs ? null : delay
}

/** A `retryDelay` handler for @fastify/reply-from applying `policy`. */
export function upstreamRetry(policy: RetryPolicy = DEFAULT_RETRY_POLICY) {
  const started = new WeakMap<object, number>()
  return (details: unknown): number | null => {
    const { req, res, attempt } = details as unknown as SentAttempt
    if (!res || !replayable(req.body)) return null
    if (!started.has(req)) started.set(req, Date.now())
    const delay = retryDelay(
      policy,
      attempt,
      res.statusCode,
      res.headers['retry-after'],
      Date.now() - (started.get(req) as number),
    )
    // The refused answer is dropped, not read: its connection must not wait on an unread body.
    if (delay !== null) res.stream?.destroy()
    return delay
  }
}
