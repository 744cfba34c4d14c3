/**
 * What keeps password guessing slow and password hashing from taking the backend down.
 *
 * Each scrypt check costs 128 MiB and ~100 ms of a core (store/users.ts), so sign-ins are the one cheap way to make
 * this server spend a lot: both the rate of guesses per account and the number of hashes in flight are bounded.
 */

/**
 * Sign-in attempts per key (address and name) within a sliding window. An attempt is counted when it *starts*, before
 * the password is checked, and forgiven when it succeeds: counting only finished failures let 40 guesses sent at once
 * all be checked, since every one of them read the count before any had failed.
 */
export class SignInLimiter {
  private readonly attempts = new Map<string, number[]>()
  constructor(private readonly limit: { attempts: number; windowMs: number }) {}

  /** Reserves an attempt: 0 when it may go ahead (and is now counted), else milliseconds to wait. */
  begin(key: string, now = Date.now()): number {
    const recent = (this.attempts.get(key) ?? []).filter((t) => now - t < this.limit.windowMs)
    const oldest = recent[0]
    if (recent.length >= this.limit.attempts && oldest !== undefined) {
      this.attempts.set(key, recent)
      return Math.max(1, oldest + this.limit.windowMs - now)
    }
    recent.push(now)
    this.attempts.set(key, recent)
    this.sweep(now)
    return 0
  }

  /** An attempt that was turned away before its password was checked (server busy) is not held against the key. */
  cancel(key: string) {
    this.attempts.get(key)?.pop()
  }

  /** A correct password clears the key's count. */
  succeed(key: string) {
    this.attempts.delete(key)
  }

  /** Keys whose attempts are all outside the window are forgotten, so the map cannot grow without bound. */
  private sweep(now: number) {
    if (this.attempts.size < 10_000) return
    for (const [key, times] of this.attempts) {
      if (times.every((t) => now - t >= this.limit.windowMs)) this.attempts.delete(key)
    }
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
