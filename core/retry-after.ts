/**
 * The one retry policy of the whole studio: how long to wait before trying a refused request again, and how to read
 * the service's Retry-After header. The studio backend (server/studio/proxy/retry.ts, retrying upstream answers) and the
 * browser (src/api/capacity-retry.ts, with a visible countdown) both wait this way, with their own base and cap, so
 * that a client refused for capacity never comes back sooner than asked, and clients refused together spread out.
 */

export interface BackoffPolicy {
  /** The backoff of the first retry; doubled for each next one. */
  baseMs: number
  /** The backoff never grows past this. */
  capMs: number
}

/**
 * Retry-After in milliseconds (contract 7): a number of seconds or an HTTP date; null when absent or unreadable, so each
 * caller says what it assumes then. A date already past, or a negative number, is no wait at all.
 */
export function parseRetryAfterMs(
  value: string | readonly string[] | null | undefined,
  now = Date.now(),
): number | null {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim()
  if (!text) return null
  const seconds = Number(text)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/**
 * The wait before retry number `retry` (1 for the first): never sooner than `floorMs` (the server's Retry-After),
 * plus full jitter over an exponential backoff (`baseMs` doubled each retry, at most `capMs`), so that clients
 * refused together do not come back together. `random` is in [0, 1); tests pass a fixed one.
 */
export function backoffDelayMs(
  retry: number,
  floorMs: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const backoff = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, retry - 1))
  return Math.round(floorMs + random() * backoff)
}
