import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { RedisLimits } from './redis-slots.ts'
import type { AcquireResult, Slot } from './slots.ts'

/**
 * The shared limiter over the real Redis (127.0.0.1:6379, or STUDIO_TEST_REDIS_URL): several `RedisLimits` stand for
 * several instances, each with connections of its own. A `*.cluster.test.ts` file, so it runs in the `postgres`
 * project, whose global setup makes sure Redis answers. Every test has its own key prefix.
 */
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const TTL = 600

let inspect: Redis
let opened: RedisLimits[] = []
let prefix = ''
/** What the instances said (lost leases, Redis away); a healthy run says nothing. */
let warnings: string[] = []

beforeAll(() => {
  inspect = new Redis(REDIS_URL)
})
afterAll(() => inspect.quit())
afterEach(async () => {
  await Promise.allSettled(opened.map((l) => l.close()))
  opened = []
  warnings = []
  const keys = await inspect.keys(`${prefix}*`)
  if (keys.length) await inspect.del(...keys)
})

async function instance(leaseTtlMs = TTL, waiterTtlMs?: number): Promise<RedisLimits> {
  const limits = await RedisLimits.open({
    url: REDIS_URL,
    prefix,
    leaseTtlMs,
    waiterTtlMs,
    warn: (m) => warnings.push(m),
  })
  opened.push(limits)
  return limits
}

function fresh() {
  prefix = `test:limits:${randomUUID()}:`
}

const slotOf = (r: AcquireResult): Slot => {
  if (!('slot' in r)) throw new Error(`rejected: ${r.rejected}`)
  return r.slot
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('RedisSlotPool', () => {
  it('grants up to the limit per owner across instances and refuses the next at once', async () => {
    fresh()
    const [a, b] = [await instance(), await instance()]
    const [pa, pb] = [a.pool('tts', 2), b.pool('tts', 2)]
    const first = slotOf(await pa.acquire('org1'))
    slotOf(await pb.acquire('org1'))
    expect(await pa.acquire('org1')).toEqual({ rejected: 'full' })
    expect(await pb.acquire('org1')).toEqual({ rejected: 'full' })
    expect(await pa.available('org1')).toBe(false)
    // Another owner has its own slots.
    slotOf(await pb.acquire('org2'))
    expect([pa.held(), pb.held(), pb.held('org1')]).toEqual([1, 2, 1])
    first.release()
    await expect.poll(() => pb.available('org1')).toBe(true)
    slotOf(await pb.acquire('org1'))
    expect(await inspect.zcard(pa.keys('org1').leases)).toBe(2)
  })

  it('releases once however often release is called, never someone else’s slot', async () => {
    fresh()
    const [a, b] = [await instance(), await instance()]
    const [pa, pb] = [a.pool('tts', 2), b.pool('tts', 2)]
    const mine = slotOf(await pa.acquire('o'))
    slotOf(await pb.acquire('o'))
    mine.release()
    mine.release()
    mine.release()
    await expect.poll(() => inspect.zcard(pa.keys('o').leases)).toBe(1)
    slotOf(await pa.acquire('o'))
    expect(await pa.acquire('o')).toEqual({ rejected: 'full' })
  })

  // The second waiter joins as soon as the first is seen in line, usually within the same millisecond: the line
  // orders them by arrival all the same (by milliseconds and random ids it put the second first about one time in
  // three, and the test then waited for a slot it frees only later).
  it('hands a released slot to the waiters in arrival order, whichever instance they wait on', async () => {
    fresh()
    // Places in line that outlast any stall of a loaded test machine: a waiter whose process did not look again
    // within its place's life (here the short test TTL) lost its place, rejoined behind the other and waited for a
    // slot this test frees only after it (failed twice in one full run at the 30 s deadline).
    const placeMs = 30_000
    const [a, b, c] = [
      await instance(TTL, placeMs),
      await instance(TTL, placeMs),
      await instance(TTL, placeMs),
    ]
    const [pa, pb, pc] = [a.pool('tts', 1, 2), b.pool('tts', 1, 2), c.pool('tts', 1, 2)]
    /** Asks Redis again at once (not every 50 ms as `expect.poll` does), so the next waiter follows closely. */
    const inLine = async (n: number) => {
      const until = Date.now() + 5000
      while ((await inspect.zcard(pa.keys('o').queue)) < n)
        if (Date.now() > until) throw new Error(`fewer than ${n} in line after 5 s`)
    }
    const holder = slotOf(await pa.acquire('o'))
    const order: string[] = []
    // Deadlines far beyond the test's steps, which a loaded machine can stretch to seconds: the order is the point.
    const w1 = pb.acquire('o', 20_000).then((r) => {
      order.push('b')
      return r
    })
    await inLine(1)
    const w2 = pc.acquire('o', 20_000).then((r) => {
      order.push('c')
      return r
    })
    await inLine(2)
    // The line holds two: a third is refused at once, and a newcomer without waiting cannot overtake.
    expect(await pa.acquire('o', 5000)).toEqual({ rejected: 'full' })
    const started = Date.now()
    holder.release()
    // The first to be served is the first in line (were it the second, the first would wait out its deadline).
    await Promise.race([w1, w2])
    expect(order).toEqual(['b'])
    slotOf(await w1).release()
    slotOf(await w2).release()
    expect(order).toEqual(['b', 'c'])
    // Woken by the release (its notice, or the next poll), long before the deadline.
    expect(Date.now() - started).toBeLessThan(10_000)
    await expect.poll(() => inspect.exists(pa.keys('o').leases, pa.keys('o').queue)).toBe(0)
  })

  it('keeps the order of waiters that join within the same millisecond', async () => {
    fresh()
    const pool = (await instance(TTL, 30_000)).pool('tts', 1, 2)
    // One connection sends the two waiters' scripts back to back, so Redis runs them in that order, nearly always
    // within one millisecond; by milliseconds and random ids the second went first in about half the rounds.
    for (let round = 0; round < 10; round++) {
      const holder = slotOf(await pool.acquire('o'))
      const order: number[] = []
      const waiters = [1, 2].map((n) =>
        pool.acquire('o', 20_000).then((r) => {
          order.push(n)
          return r
        }),
      )
      await expect.poll(() => inspect.zcard(pool.keys('o').queue)).toBe(2)
      holder.release()
      await Promise.race(waiters)
      expect(order).toEqual([1])
      for (const waiter of waiters) slotOf(await waiter).release()
    }
  })

  it('gives up at the deadline and on abort, leaving the line', async () => {
    fresh()
    const [a, b] = [await instance(), await instance()]
    const [pa, pb] = [a.pool('tts', 1, 5), b.pool('tts', 1, 5)]
    slotOf(await pa.acquire('o'))
    const started = Date.now()
    expect(await pb.acquire('o', 400)).toEqual({ rejected: 'timeout' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(390)
    const controller = new AbortController()
    const waiting = pb.acquire('o', 10_000, controller.signal)
    await expect.poll(() => inspect.zcard(pb.keys('o').queue)).toBe(1)
    controller.abort()
    expect(await waiting).toEqual({ rejected: 'timeout' })
    expect(await inspect.zcard(pb.keys('o').queue)).toBe(0)
    // A signal aborted already gets nothing, not even a place in line.
    expect(await pb.acquire('o', 10_000, controller.signal)).toEqual({ rejected: 'timeout' })
    expect(pb.held()).toBe(0)
  })

  it('keeps a held slot alive with its heartbeat, and frees the slot of a holder cut off within the lease TTL', async () => {
    fresh()
    const [a, b] = [await instance(), await instance()]
    const [pa, pb] = [a.pool('tts', 1), b.pool('tts', 1)]
    slotOf(await pa.acquire('o'))
    await sleep(TTL * 3)
    expect(await pb.acquire('o')).toEqual({ rejected: 'full' })
    // The holder loses Redis without a word (as a SIGKILLed instance would): no release, no more heartbeats.
    a.redis.disconnect()
    const cut = Date.now()
    await expect
      .poll(async () => 'slot' in (await pb.acquire('o')), { timeout: TTL * 4, interval: 50 })
      .toBe(true)
    expect(Date.now() - cut).toBeLessThanOrEqual(TTL + 300)
  })

  it('lets a waiter through when the slot it waits for expires, and drops the waiters of a dead instance', async () => {
    fresh()
    const [a, b, c] = [await instance(), await instance(), await instance()]
    const [pa, pb, pc] = [a.pool('tts', 1, 2), b.pool('tts', 1, 2), c.pool('tts', 1, 2)]
    slotOf(await pa.acquire('o'))
    // b waits first, then dies: its place in line must not block c behind it for long.
    void pb.acquire('o', 30_000).catch(() => {})
    await expect.poll(() => inspect.zcard(pa.keys('o').queue)).toBe(1)
    const waiting = pc.acquire('o', 10_000)
    b.redis.disconnect()
    a.redis.disconnect()
    const cut = Date.now()
    slotOf(await waiting)
    // The holder's lease and the dead waiter's place (a TTL each, at least a second for places) are both gone.
    expect(Date.now() - cut).toBeLessThan(2500)
  })

  it('never grants more than the limit to many concurrent acquires over three instances', async () => {
    fresh()
    const instances = [await instance(), await instance(), await instance()]
    const pools = instances.map((l) => l.pool('tts', 3, 100))
    let inUse = 0
    let peak = 0
    let served = 0
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const slot = slotOf(await (pools[i % 3] as (typeof pools)[number]).acquire('o', 20_000))
        inUse++
        peak = Math.max(peak, inUse)
        // Redis agrees with what the holders see.
        expect(await inspect.zcard(pools[0]?.keys('o').leases as string)).toBeLessThanOrEqual(3)
        await sleep(20 + (i % 4) * 20)
        inUse--
        served++
        slot.release()
      }),
    )
    expect(served).toBe(60)
    expect(peak).toBe(3)
    // Leases released while their renewal was on the way are not taken for lost ones.
    expect(warnings).toEqual([])
    await expect.poll(() => inspect.exists(pools[0]?.keys('o').leases as string)).toBe(0)
  })

  it('answers 503 with Retry-After in the contract’s shape when Redis cannot be reached, never an unlimited slot', async () => {
    fresh()
    const a = await instance()
    const pool = a.pool('tts', 2)
    a.redis.disconnect()
    const error = await pool.acquire('o').catch((err: unknown) => err)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '2' } })
    expect(await a.health()).toMatchObject({ store: 'redis', reachable: false })
    expect(pool.held()).toBe(0)
  })

  it('refuses to start when Redis does not answer', async () => {
    await expect(RedisLimits.open({ url: 'redis://127.0.0.1:1', warn: () => {} })).rejects.toThrow(
      /Redis did not answer/,
    )
  })
})
