/**
 * What keeps password guessing slow and password hashing from taking the backend down.
 *
 * Each scrypt check costs 128 MiB and ~100 ms of a core (users.ts), so sign-ins are the one cheap way to make
 * this server spend a lot: both the rate of guesses per account and the number of hashes in flight are bounded.
 */

import { createHash, randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'

/** Sign-in attempts allowed per key within a sliding window. */
export interface SignInLimit {
  attempts: number
  windowMs: number
}

/**
 * Sign-in attempts per key (address and name) within a sliding window. An attempt is counted when it *starts*, before
 * the password is checked, and forgiven when it succeeds: counting only finished failures let 40 guesses sent at once
 * all be checked, since every one of them read the count before any had failed.
 */
export interface SignInCounter {
  /**
   * Reserves an attempt: `wait` 0 when it may go ahead (and is now counted, as `attempt`), else milliseconds to wait
   * (nothing counted).
   */
  begin(key: string): Promise<{ wait: number; attempt: string }>
  /** An attempt that was turned away before its password was checked (server busy) is not held against the key. */
  cancel(key: string, attempt: string): Promise<void>
  /** A correct password clears the key's count. */
  succeed(key: string): Promise<void>
}

const newAttempt = () => randomBytes(8).toString('hex')

/** The counter of one instance, in memory: the default, and right whenever a single backend serves the studio. */
export class SignInLimiter implements SignInCounter {
  private readonly attempts = new Map<string, Array<{ at: number; id: string }>>()
  constructor(private readonly limit: SignInLimit) {}

  async begin(key: string, now = Date.now()): Promise<{ wait: number; attempt: string }> {
    const recent = (this.attempts.get(key) ?? []).filter((a) => now - a.at < this.limit.windowMs)
    const oldest = recent[0]
    if (recent.length >= this.limit.attempts && oldest !== undefined) {
      this.attempts.set(key, recent)
      return { wait: Math.max(1, oldest.at + this.limit.windowMs - now), attempt: '' }
    }
    const attempt = newAttempt()
    recent.push({ at: now, id: attempt })
    this.attempts.set(key, recent)
    this.sweep(now)
    return { wait: 0, attempt }
  }

  async cancel(key: string, attempt: string) {
    const list = this.attempts.get(key)
    if (list)
      this.attempts.set(
        key,
        list.filter((a) => a.id !== attempt),
      )
  }

  async succeed(key: string) {
    this.attempts.delete(key)
  }

  /** Keys whose attempts are all outside the window are forgotten, so the map cannot grow without bound. */
  private sweep(now: number) {
    if (this.attempts.size < 10_000) return
    for (const [key, list] of this.attempts) {
      if (list.every((a) => now - a.at >= this.limit.windowMs)) this.attempts.delete(key)
    }
  }
}

/**
 * One sorted set per key: members are attempts, scores their start in Redis's own clock (so instances whose clocks
 * disagree still share one window). Pruning the window, counting, and adding the new attempt happen in one script,
 * which Redis runs atomically, so concurrent attempts through any number of instances are counted exactly.
 */
const BEGIN_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
`

/**
 * The counter shared by every backend instance, in Redis (`REDIS_URL`), so guesses spread over instances count
 * together. Keys are hashed: no name or address is stored in Redis. When Redis cannot answer, `begin` throws and the
 * sign-in is refused with 503 (routes.ts) rather than let through uncounted; signed-in people are unaffected (their
 * sessions are in the database).
 */
export class RedisSignInLimiter implements SignInCounter {
  constructor(
    private readonly redis: Redis,
    private readonly limit: SignInLimit,
    private readonly prefix = 'studio:sign-in:',
  ) {}

  private key(key: string) {
    return `${this.prefix}${createHash('sha256').update(key).digest('base64url')}`
  }

  async begin(key: string): Promise<{ wait: number; attempt: string }> {
    const attempt = newAttempt()
    const wait = (await this.redis.eval(
      BEGIN_SCRIPT,
      1,
      this.key(key),
      this.limit.windowMs,
      this.limit.attempts,
      attempt,
    )) as number
    return { wait: Number(wait), attempt: wait > 0 ? '' : attempt }
  }

  async cancel(key: string, attempt: string) {
    if (attempt) await this.redis.zrem(this.key(key), attempt)
  }

  async succeed(key: string) {
    await this.redis.del(this.key(key))
  }
}

/** Thrown by `HashGate.run` when the queue is full: the caller answers 503, the password is never hashed. */
export class HashGateFullError extends Error {}

/**
 * At most `concurrency` password hashes at a time and `queue` waiting; the rest are turned away at once. Sixty
 * concurrent sign-ins to different names used to run sixty scrypts together (405 MiB, and a real user's sign-in took
 * 11.7 s instead of 1.5 s).
 */
export class HashGate {
  private running = 0
  private readonly waiting: Array<() => void> = []
  constructor(private readonly limits: { concurrency: number; queue: number }) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (this.waiting.length >= this.limits.queue) throw new HashGateFullError('sign-in queue full')
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else {
      this.running++
    }
    try {
      return await work()
    } finally {
      // The slot passes straight to the next in line, so `running` never drops and rises in between.
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }

  get inFlight() {
    return this.running
  }
}
