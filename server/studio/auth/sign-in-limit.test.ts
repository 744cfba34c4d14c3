import { describe, expect, it } from 'vitest'
import { HashGate, HashGateFullError, SignInLimiter } from './sign-in-limit.ts'

describe('sign-in limiter', () => {
  it('counts an attempt when it starts, forgives success and busy refusals', async () => {
    const limiter = new SignInLimiter({ attempts: 3, windowMs: 60_000 })
    const wait = async (key: string, now: number) => (await limiter.begin(key, now)).wait
    expect([await wait('k', 1000), await wait('k', 1000), await wait('k', 1000)]).toEqual([0, 0, 0])
    expect(await wait('k', 2000)).toBe(59_000)
    expect(await wait('other', 2000)).toBe(0)
    const late = await limiter.begin('k', 61_001) // the first attempts left the window
    expect(late.wait).toBe(0)
    await limiter.cancel('k', late.attempt)
    expect(await wait('k', 61_001)).toBe(0) // the cancelled attempt no longer counts
    expect(await wait('k', 61_001)).toBe(0)
    expect(await wait('k', 61_001)).toBe(0)
    expect(await wait('k', 61_001)).toBeGreaterThan(0)
    await limiter.succeed('k')
    expect(await wait('k', 61_001)).toBe(0)
  })
})

describe('hash gate', () => {
  it('runs at most `concurrency` at once, queues up to `queue`, refuses the rest at once', async () => {
    const gate = new HashGate({ concurrency: 2, queue: 3 })
    let running = 0
    let most = 0
    const releases: Array<() => void> = []
    const work = () =>
      new Promise<void>((resolve) => {
        running++
        most = Math.max(most, running)
        releases.push(() => {
          running--
          resolve()
        })
      })
    const results = Array.from({ length: 8 }, () =>
      gate.run(work).then(
        () => 'done',
        (e) => e,
      ),
    )
    await new Promise((r) => setTimeout(r, 0))
    expect(running).toBe(2)
    while (releases.length > 0) {
      releases.shift()?.()
      await new Promise((r) => setTimeout(r, 0))
    }
    const settled = await Promise.all(results)
    expect(settled.filter((r) => r === 'done')).toHaveLength(5)
    expect(settled.filter((r) => r instanceof HashGateFullError)).toHaveLength(3)
    expect(most).toBe(2)
    expect(gate.inFlight).toBe(0)
  })

  it('frees its slot when the work throws', async () => {
    const gate = new HashGate({ concurrency: 1, queue: 0 })
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(gate.run(async () => 'next')).resolves.toBe('next')
  })
})
