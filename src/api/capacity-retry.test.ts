import { describe, expect, it } from 'vitest'
import {
  CAPACITY_RETRY_POLICY,
  type CapacityWait,
  capacityDelayMs,
  isCapacityError,
  withCapacityRetry,
} from './capacity-retry.ts'
import { ApiRequestError } from './http.ts'
import { IncompleteStreamError } from './speech.ts'

function refusal(status: number, code: string | null, retryAfterSeconds: number | null = null) {
  return new ApiRequestError(
    status,
    { error: { message: 'Refused.', type: 'rate_limit_error', param: null, code }, request_id: 'req_1' },
    'req_1',
    retryAfterSeconds,
  )
}

/** A clock that only moves when the code under test sleeps. */
function fakeClock() {
  const clock = {
    t: 0,
    slept: [] as number[],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.slept.push(ms)
      clock.t += ms
    },
  }
  return clock
}

/** An attempt that fails with each error in turn, then resolves with 'audio'. */
function attempts(...failures: unknown[]) {
  const made = { count: 0 }
  const attempt = async () => {
    const failure = failures[made.count]
    made.count++
    if (failure !== undefined) throw failure
    return 'audio'
  }
  return { attempt, made }
}

describe('isCapacityError', () => {
  it.each([
    [refusal(429, 'rate_limit_exceeded'), true],
    [refusal(429, 'custom_voice_creation_busy'), true],
    [refusal(503, 'service_unavailable'), true],
    [refusal(503, 'voice_preparing'), true],
    [new ApiRequestError(503, null, null), true],
    [refusal(503, 'recognition_unavailable'), false],
    [new ApiRequestError(429, { detail: 'Too many sign-in attempts.' }, null), false],
    [refusal(400, 'invalid_request_error'), false],
    [new IncompleteStreamError(), false],
    [new TypeError('Failed to fetch'), false],
  ])('%s → %s', (err, expected) => {
    expect(isCapacityError(err)).toBe(expected)
  })
})

describe('capacityDelayMs', () => {
  it('never waits less than Retry-After, 1 s when absent, and adds capped jittered backoff', () => {
    expect(capacityDelayMs(1, 1, () => 0)).toBe(1000)
    expect(capacityDelayMs(1, null, () => 0)).toBe(1000)
    expect(capacityDelayMs(1, 5, () => 0)).toBe(5000)
    expect(capacityDelayMs(1, 1, () => 1)).toBe(1000 + CAPACITY_RETRY_POLICY.baseMs)
    expect(capacityDelayMs(2, 1, () => 1)).toBe(1000 + 2 * CAPACITY_RETRY_POLICY.baseMs)
    expect(capacityDelayMs(20, 1, () => 1)).toBe(1000 + CAPACITY_RETRY_POLICY.capMs)
    expect(capacityDelayMs(1, 1, () => 0.5)).toBe(1000 + CAPACITY_RETRY_POLICY.baseMs / 2)
  })
})

describe('withCapacityRetry', () => {
  it('waits out Retry-After with a countdown each second, then tries again', async () => {
    const clock = fakeClock()
    const waits: CapacityWait[] = []
    const { attempt, made } = attempts(refusal(429, 'custom_voice_creation_busy', 3))
    const result = await withCapacityRetry(attempt, {
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0.25, // 3 s + 0.25 × 2 s = 3.5 s
      onWait: (w) => waits.push(w),
    })
    expect(result).toBe('audio')
    expect(made.count).toBe(2)
    expect(clock.t).toBe(3500)
    expect(clock.slept).toEqual([500, 1000, 1000, 1000])
    expect(waits.map((w) => w.secondsLeft)).toEqual([4, 3, 2, 1, 0])
    expect(waits[0]).toMatchObject({
      attempt: 2,
      maxAttempts: 3,
      reason: expect.stringMatching(/cloning queue/),
    })
  })

  it('backs off longer each time and gives up after maxAttempts with the last refusal', async () => {
    const clock = fakeClock()
    const last = refusal(503, 'service_unavailable', 1)
    const { attempt, made } = attempts(refusal(429, 'rate_limit_exceeded', 1), refusal(503, null, 1), last)
    const attemptsSeen = new Set<number>()
    await expect(
      withCapacityRetry(attempt, {
        now: clock.now,
        sleep: clock.sleep,
        random: () => 1,
        onWait: (w) => attemptsSeen.add(w.attempt),
      }),
    ).rejects.toBe(last)
    expect(made.count).toBe(3)
    // 1 s + 2 s, then 1 s + 4 s.
    expect(clock.t).toBe(3000 + 5000)
    expect([...attemptsSeen]).toEqual([2, 3])
  })

  it('honours maxAttempts', async () => {
    const busy = () => refusal(429, 'rate_limit_exceeded', 1)
    const clock = fakeClock()
    const five = attempts(busy(), busy(), busy(), busy())
    const options = { now: clock.now, sleep: clock.sleep, random: () => 0 }
    await expect(withCapacityRetry(five.attempt, { ...options, maxAttempts: 5 })).resolves.toBe('audio')
    expect(five.made.count).toBe(5)
    const two = attempts(busy(), busy(), busy(), busy())
    await expect(withCapacityRetry(two.attempt, { ...options, maxAttempts: 2 })).rejects.toBeInstanceOf(
      ApiRequestError,
    )
    expect(two.made.count).toBe(2)
  })

  it.each([
    ['a refused field', refusal(400, 'invalid_request_error')],
    ['a broken stream (audio had arrived)', new IncompleteStreamError()],
    ['missing recognition', refusal(503, 'recognition_unavailable')],
    ['a network failure', new TypeError('Failed to fetch')],
  ])('does not retry %s', async (_, err) => {
    const clock = fakeClock()
    const { attempt, made } = attempts(err)
    await expect(withCapacityRetry(attempt, { now: clock.now, sleep: clock.sleep })).rejects.toBe(err)
    expect(made.count).toBe(1)
    expect(clock.t).toBe(0)
  })

  it('stops waiting at once on abort, with the real timer', async () => {
    const abort = new AbortController()
    const { attempt, made } = attempts(refusal(429, 'rate_limit_exceeded', 60))
    const started = performance.now()
    const waits: number[] = []
    const pending = withCapacityRetry(attempt, {
      signal: abort.signal,
      onWait: (w) => {
        waits.push(w.secondsLeft)
        setTimeout(() => abort.abort(), 20)
      },
    })
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(made.count).toBe(1)
    expect(waits[0]).toBeGreaterThanOrEqual(60)
  })

  it('does not start when already aborted', async () => {
    const abort = new AbortController()
    abort.abort()
    const { attempt, made } = attempts()
    await expect(withCapacityRetry(attempt, { signal: abort.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(made.count).toBe(0)
  })
})

describe('withCapacityRetry: a policy of its own, which refusals to wait out, and skipping a wait', () => {
  const busy = () => refusal(429, 'custom_voice_creation_busy', 10)
  const onlyBusy = (err: unknown): err is ApiRequestError =>
    err instanceof ApiRequestError && err.code === 'custom_voice_creation_busy'

  it('uses the given backoff and attempts, and waits out only what it is told to', async () => {
    const clock = fakeClock()
    const { attempt, made } = attempts(busy(), busy(), busy())
    const waits: CapacityWait[] = []
    const policy = { maxAttempts: 4, baseMs: 5_000, capMs: 60_000 }
    await expect(
      withCapacityRetry(attempt, {
        ...clock,
        policy,
        retryable: onlyBusy,
        random: () => 0,
        onWait: (w) => waits.push(w),
      }),
    ).resolves.toBe('audio')
    expect(made.count).toBe(4)
    // Never sooner than Retry-After (10 s); each wait announces when it ends.
    expect(waits.filter((w) => w.secondsLeft === 0).map((w) => w.endsAt)).toEqual(
      [1, 2, 3].map((n) => waits.filter((w) => w.attempt === n + 1)[0]?.endsAt),
    )
    expect(waits[0]?.endsAt).toBeGreaterThanOrEqual(10_000)

    const other = attempts(refusal(429, 'rate_limit_exceeded'))
    await expect(
      withCapacityRetry(other.attempt, { ...clock, policy, retryable: onlyBusy }),
    ).rejects.toThrow()
    expect(other.made.count).toBe(1)
  })

  it('starts the next attempt at once when the wait is skipped', async () => {
    const { attempt, made } = attempts(busy())
    // A sleep that never ends: only the skip can start the second attempt.
    const result = withCapacityRetry(attempt, {
      sleep: () => new Promise<void>(() => {}),
      onWait: (wait, skip) => {
        if (wait.secondsLeft > 0) skip()
      },
    })
    await expect(result).resolves.toBe('audio')
    expect(made.count).toBe(2)
  })
})
