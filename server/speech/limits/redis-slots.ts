import { createHash, randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import type { AcquireResult, Slot, SlotPool } from './slots.ts'
import { limitsUnavailable } from './unavailable.ts'

/**
 * The contract's concurrency limits (section 8) shared by every speech instance on one Redis (`REDIS_URL`), as leases:
 * a slot held by an instance that dies without a word (SIGKILL, power cut) comes back by itself when its lease runs
 * out, so no counter can drift. The algorithm, per pool (tts, asr, cloning) and owner, in three keys that share one
 * hash tag (so one script touches them all, also on Redis Cluster):
 *
 * - `leases`: sorted set of the slots held, member = lease id, score = expiry in Redis's own clock (instances whose
 *   clocks disagree still agree on it). The holder's heartbeat pushes the expiry forward every third of the TTL.
 * - `queue`: sorted set of waiters in arrival order (score = arrival time in microseconds, strictly increasing), the
 *   bounded FIFO line.
 * - `waiters`: sorted set of the same waiters scored by their own expiry (the lease TTL by default), renewed each time
 *   a waiter polls: the waiters of a dead instance leave the line within it instead of blocking it.
 *
 * One Lua script (run atomically by Redis) sweeps expired leases and dead waiters, then grants when fewer waiters are
 * ahead of the caller than slots are free — a newcomer counts the whole line as ahead, so it cannot overtake anyone
 * who waits, on any instance — else puts the caller in line (when waiting is allowed and the line has room) or refuses.
 * A waiter retries when a release is published for its owner (pub/sub) and at least every `pollMs` (expiry frees
 * publish nothing); the deadline and the client's abort are local. Releasing removes the lease and, when someone
 * waits, publishes the owner on the pool's channel. Every script is idempotent for its lease id, so a repeated release
 * or a retry after a lost reply changes nothing.
 */

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

/** KEYS: leases, queue, waiters. ARGV: limit, maxWaiters, leaseTtl, waiterTtl, id, mayWait. 1 granted, 0 in line, -1 refused. */
const ACQUIRE = `${NOW}
local limit = tonumber(ARGV[1])
local maxWaiters = tonumber(ARGV[2])
local leaseTtl = tonumber(ARGV[3])
local waiterTtl = tonumber(ARGV[4])
local id = ARGV[5]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do
  redis.call('ZREM', KEYS[2], dead)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local free = limit - redis.call('ZCARD', KEYS[1])
local ahead = redis.call('ZRANK', KEYS[2], id)
local queued = ahead ~= false
if not queued then ahead = redis.call('ZCARD', KEYS[2]) end
if ahead < free then
  redis.call('ZADD', KEYS[1], now + leaseTtl, id)
  redis.call('PEXPIRE', KEYS[1], leaseTtl)
  if queued then
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[3], id)
  end
  return 1
end
if queued or (ARGV[6] == '1' and ahead < maxWaiters) then
  if not queued then
    -- Arrival in microseconds, and always after the last in line: two waiters that come in the same millisecond
    -- (or after the clock stepped back) keep their order instead of being sorted by their random ids.
    local arrival = tonumber(t[1]) * 1000000 + tonumber(t[2])
    local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    if last[2] and tonumber(last[2]) >= arrival then arrival = tonumber(last[2]) + 1 end
    redis.call('ZADD', KEYS[2], arrival, id)
  end
  redis.call('ZADD', KEYS[3], now + waiterTtl, id)
  redis.call('PEXPIRE', KEYS[2], waiterTtl)
  redis.call('PEXPIRE', KEYS[3], waiterTtl)
  return 0
end
return -1
`

/** KEYS: leases. ARGV: leaseTtl, ids... Returns the ids no longer held (expired and swept: the slot was lost). */
const RENEW = `${NOW}
local ttl = tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ttl) end
return lost
`

/** KEYS: leases, queue. ARGV: id, channel, owner. Idempotent: a second release finds nothing to remove. */
const RELEASE = `
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
if removed == 1 and redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return removed
`

/** KEYS: queue, waiters. ARGV: id, channel, owner. A waiter that gives up may let the next in line through. */
const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return 1
`

/** KEYS: leases. Slots held and not expired. */
const COUNT = `${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`

/** A script sent once, then run by its SHA (EVALSHA); sent again if Redis has forgotten it (restart, SCRIPT FLUSH). */
export class Script {
  private readonly sha: string
  constructor(private readonly lua: string) {
    this.sha = createHash('sha1').update(lua).digest('hex')
  }

  async run(redis: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args)
    } catch (err) {
      if (!(err as Error).message.startsWith('NOSCRIPT')) throw err
      return redis.eval(this.lua, keys.length, ...keys, ...args)
    }
  }
}

const scripts = {
  acquire: new Script(ACQUIRE),
  renew: new Script(RENEW),
  release: new Script(RELEASE),
  leave: new Script(LEAVE),
  count: new Script(COUNT),
}

export interface RedisLimitsOptions {
  url: string
  /** Prefix of every key and channel: instances of one deployment share it; tests use one of their own. */
  prefix?: string
  /** How long a lease outlives its holder's last heartbeat: the most a dead instance's slot stays taken. */
  leaseTtlMs?: number
  /** How often a waiter checks the line when no release is published (frees by expiry publish nothing). */
  pollMs?: number
  /**
   * How long a waiter keeps its place in line without looking again (it renews it each time it looks): the most a dead
   * instance's waiters hold up the line. A process stalled longer than this loses its waiters' places (and, with the
   * line full, a request waiting there is refused), so by default a place lives as long as a lease: a stall that
   * costs an instance no slot costs it no place either. At least a second.
   */
  waiterTtlMs?: number
  /** Said when Redis goes away or comes back, and when a held slot's lease was lost (default: console.warn). */
  warn?: (message: string) => void
}

export const DEFAULT_LEASE_TTL_MS = 6000

/**
 * The connection to the shared limits: the pools made from it share one command connection, one subscriber connection
 * (release notices) and one heartbeat. `open` refuses to start when Redis does not answer; Redis lost later makes
 * every new acquire throw the 503 of `limitsUnavailable` until it is back, while work already admitted runs on.
 */
export class RedisLimits {
  readonly prefix: string
  readonly leaseTtlMs: number
  readonly pollMs: number
  readonly waiterTtlMs: number
  private readonly pools = new Map<string, RedisSlotPool>()
  /** Wake-ups of this instance's waiters, by pool channel and owner. */
  private readonly wakers = new Map<string, Set<() => void>>()
  private heartbeat: NodeJS.Timeout | undefined
  private beating = false
  private down = false
  private readonly warn: (message: string) => void

  private constructor(
    readonly redis: Redis,
    private readonly subscriber: Redis,
    opts: RedisLimitsOptions,
  ) {
    this.prefix = opts.prefix ?? 'speech:'
    this.leaseTtlMs = opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
    this.pollMs = opts.pollMs ?? Math.min(250, Math.floor(this.leaseTtlMs / 4))
    this.waiterTtlMs = opts.waiterTtlMs ?? Math.max(1000, this.pollMs * 4, this.leaseTtlMs)
    this.warn = opts.warn ?? ((message) => console.warn(message))
    redis.on('error', (err: Error) => this.lost(err))
    redis.on('ready', () => {
      if (this.down) this.warn('Redis is back: new work is admitted again.')
      this.down = false
    })
    // Release notices only speed waiters up (they poll anyway): a subscriber in trouble is not worth a warning of
    // its own, the command connection says it.
    subscriber.on('error', () => {})
    subscriber.on('message', (channel: string, owner: string) => this.wake(channel, owner))
    this.heartbeat = setInterval(() => void this.renewAll(), Math.max(100, Math.floor(this.leaseTtlMs / 3)))
    this.heartbeat.unref()
  }

  static async open(opts: RedisLimitsOptions): Promise<RedisLimits> {
    if (opts.leaseTtlMs !== undefined && !(opts.leaseTtlMs >= 300))
      throw new Error(`the lease TTL must be at least 300 ms, got ${opts.leaseTtlMs}`)
    const redis = new Redis(opts.url, {
      lazyConnect: true,
      // Fail fast while Redis is away (503 to the client) instead of queueing requests behind a dead connection.
      maxRetriesPerRequest: 1,
      commandTimeout: 2000,
      enableOfflineQueue: false,
    })
    const subscriber = new Redis(opts.url, { lazyConnect: true })
    let lastError = ''
    const remember = (err: Error) => {
      lastError = err.message
    }
    redis.on('error', remember)
    try {
      await redis.connect()
      await subscriber.connect()
    } catch (err) {
      redis.disconnect()
      subscriber.disconnect()
      throw new Error(`REDIS_URL is set but Redis did not answer: ${lastError || (err as Error).message}`)
    }
    redis.off('error', remember)
    return new RedisLimits(redis, subscriber, opts)
  }

  /** A pool of `limit` slots per owner with a line of `maxWaiters`; `name` keeps pools apart in Redis. */
  pool(name: string, limit: number, maxWaiters = 0): RedisSlotPool {
    if (this.pools.has(name)) throw new Error(`pool ${name} exists already`)
    const pool = new RedisSlotPool(this, name, limit, maxWaiters)
    this.pools.set(name, pool)
    void this.subscriber.subscribe(pool.channel).catch(() => {})
    return pool
  }

  /** Whether Redis answers, and how fast: for /health. */
  async health(): Promise<{ store: 'redis'; reachable: boolean; latency_ms?: number; error?: string }> {
    const start = performance.now()
    try {
      await this.redis.ping()
      return {
        store: 'redis',
        reachable: true,
        latency_ms: Math.round((performance.now() - start) * 100) / 100,
      }
    } catch (err) {
      return { store: 'redis', reachable: false, error: (err as Error).message }
    }
  }

  /**
   * Stops the heartbeat and gives back every slot this instance still holds, then closes the connections. The
   * leases would expire anyway; giving them back lets the next request in at once.
   */
  async close(): Promise<void> {
    clearInterval(this.heartbeat)
    await Promise.allSettled([...this.pools.values()].map((pool) => pool.releaseAll()))
    this.subscriber.disconnect()
    await this.redis.quit().catch(() => this.redis.disconnect())
  }

  /** Runs a script; any failure to reach Redis becomes the contract's 503 for the request that needed it. */
  async run(script: keyof typeof scripts, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await scripts[script].run(this.redis, keys, args)
    } catch (err) {
      this.lost(err as Error)
      throw limitsUnavailable()
    }
  }

  /** Registers a wake-up for a waiter of `owner` on `channel`; returns its removal. */
  onRelease(channel: string, owner: string, wake: () => void): () => void {
    const key = `${channel}\n${owner}`
    let set = this.wakers.get(key)
    if (!set) {
      set = new Set()
      this.wakers.set(key, set)
    }
    set.add(wake)
    return () => {
      set.delete(wake)
      if (set.size === 0) this.wakers.delete(key)
    }
  }

  wake(channel: string, owner: string) {
    for (const wake of this.wakers.get(`${channel}\n${owner}`) ?? []) wake()
  }

  private lost(err: Error) {
    if (!this.down) this.warn(`Redis unavailable (${err.message}): new work answers 503 until it is back.`)
    this.down = true
  }

  private async renewAll() {
    if (this.beating) return
    this.beating = true
    try {
      for (const pool of this.pools.values()) {
        for (const [owner, id] of await pool.renew().catch(() => [])) {
          this.warn(
            `The ${pool.name} lease ${id} of ${owner} expired while held (Redis away or the process stalled).`,
          )
        }
      }
    } finally {
      this.beating = false
    }
  }
}

const newLeaseId = () => randomBytes(9).toString('base64url')

/** One pool of slots in Redis (see the algorithm above); `held()` counts this instance's leases. */
export class RedisSlotPool implements SlotPool {
  readonly channel: string
  /** Leases this instance holds: lease id → owner. */
  private readonly leases = new Map<string, string>()

  constructor(
    private readonly host: RedisLimits,
    readonly name: string,
    readonly limit: number,
    readonly maxWaiters: number,
  ) {
    this.channel = `${host.prefix}${name}:released`
  }

  /** The keys of one owner's slots; the braces make them one hash slot for Redis Cluster. */
  keys(owner: string) {
    const base = `${this.host.prefix}${this.name}:{${owner}}`
    return { leases: `${base}:leases`, queue: `${base}:queue`, waiters: `${base}:waiters` }
  }

  async available(owner: string): Promise<boolean> {
    return Number(await this.host.run('count', [this.keys(owner).leases], [])) < this.limit
  }

  async acquire(owner: string, waitMs = 0, signal?: AbortSignal): Promise<AcquireResult> {
    if (signal?.aborted) return { rejected: 'timeout' }
    const id = newLeaseId()
    const deadline = Date.now() + waitMs
    const mayWait = waitMs > 0 && this.maxWaiters > 0
    const first = await this.attempt(owner, id, mayWait)
    if (first === 1) return { slot: this.granted(owner, id) }
    if (first === -1) return { rejected: 'full' }
    return this.wait(owner, id, deadline, signal)
  }

  held(owner?: string): number {
    if (owner === undefined) return this.leases.size
    let n = 0
    for (const o of this.leases.values()) if (o === owner) n++
    return n
  }

  /** Pushes the expiry of every lease held here forward; returns the [owner, id] of those found lost. */
  async renew(): Promise<Array<[string, string]>> {
    const byOwner = new Map<string, string[]>()
    for (const [id, owner] of this.leases) byOwner.set(owner, [...(byOwner.get(owner) ?? []), id])
    const lost: Array<[string, string]> = []
    await Promise.all(
      [...byOwner].map(async ([owner, ids]) => {
        const keys = [this.keys(owner).leases]
        const gone = (await this.host.run('renew', keys, [this.host.leaseTtlMs, ...ids])) as string[]
        // A lease released while its renewal was on the way is gone from Redis too, and rightly so: not lost.
        for (const id of gone) if (this.leases.has(id)) lost.push([owner, id])
      }),
    )
    return lost
  }

  async releaseAll(): Promise<void> {
    await Promise.allSettled([...this.leases].map(([id, owner]) => this.release(owner, id)))
  }

  private attempt(owner: string, id: string, mayWait: boolean): Promise<number> {
    const k = this.keys(owner)
    const waiterTtl = this.host.waiterTtlMs
    return this.host
      .run(
        'acquire',
        [k.leases, k.queue, k.waiters],
        [this.limit, this.maxWaiters, this.host.leaseTtlMs, waiterTtl, id, mayWait ? '1' : '0'],
      )
      .then(Number)
  }

  /** In line: tries again on every release notice for the owner and every `pollMs`, until granted, the deadline or abort. */
  private async wait(
    owner: string,
    id: string,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<AcquireResult> {
    let pending = false
    let wake = () => {
      pending = true
    }
    const onWake = () => wake()
    const stopListening = this.host.onRelease(this.channel, owner, onWake)
    signal?.addEventListener('abort', onWake)
    try {
      for (;;) {
        if (!pending) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.max(0, Math.min(this.host.pollMs, deadline - Date.now())))
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
        }
        pending = false
        wake = () => {
          pending = true
        }
        if (signal?.aborted || Date.now() >= deadline) break
        const result = await this.attempt(owner, id, true)
        if (result === 1) {
          const slot = this.granted(owner, id)
          // Aborted while the grant was on its way: as in memory, an abandoned wait gets no slot.
          if (!signal?.aborted) return { slot }
          slot.release()
          return { rejected: 'timeout' }
        }
        if (result === -1) return { rejected: 'full' }
      }
      const k = this.keys(owner)
      // If Redis is away the waiter's entry expires by itself within a second; the answer is the timeout either way.
      await this.host.run('leave', [k.queue, k.waiters], [id, this.channel, owner]).catch(() => {})
      return { rejected: 'timeout' }
    } finally {
      stopListening()
      signal?.removeEventListener('abort', onWake)
    }
  }

  private granted(owner: string, id: string): Slot {
    this.leases.set(id, owner)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        void this.release(owner, id).catch(() => {})
      },
    }
  }

  /** Gives a lease back; if Redis cannot be reached it expires by itself within the TTL. */
  private async release(owner: string, id: string): Promise<void> {
    this.leases.delete(id)
    const k = this.keys(owner)
    await this.host.run('release', [k.leases, k.queue], [id, this.channel, owner])
    // This instance's own waiters need not wait for the notice to come back from Redis.
    this.host.wake(this.channel, owner)
  }
}
