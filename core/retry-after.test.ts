import { describe, expect, it } from 'vitest'
import { backoffDelayMs, parseRetryAfterMs } from './retry-after.ts'

describe('parseRetryAfterMs', () => {
  it('reads seconds, fractions of them and HTTP dates', () => {
    expect(parseRetryAfterMs('7')).toBe(7000)
    expect(parseRetryAfterMs(' 0.5 ')).toBe(500)
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:01:30 GMT', now)).toBe(90_000)
    // A header given twice (Node's array form) is read by its first value.
    expect(parseRetryAfterMs(['3', '9'])).toBe(3000)
  })

  it('treats a past date or a negative number as no wait, and anything else as unknown', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0)
    expect(parseRetryAfterMs('-5')).toBe(0)
    expect(parseRetryAfterMs('soon')).toBeNull()
    expect(parseRetryAfterMs('')).toBeNull()
    expect(parseRetryAfterMs(null)).toBeNull()
    expect(parseRetryAfterMs(undefined)).toBeNull()
  })
})

describe('backoffDelayMs', () => {
  const policy = { baseMs: 1000, capMs: 8000 }

  it('never waits less than the floor, and adds at most the doubled backoff', () => {
    expect(backoffDelayMs(1, 2000, policy, () => 0)).toBe(2000)
    expect(backoffDelayMs(1, 2000, policy, () => 0.5)).toBe(2500)
    expect(backoffDelayMs(2, 0, policy, () => 0.999_999)).toBe(2000)
    expect(backoffDelayMs(3, 0, policy, () => 0.999_999)).toBe(4000)
  })

  it('stops doubling at the cap', () => {
    expect(backoffDelayMs(4, 0, policy, () => 0.999_999)).toBe(8000)
    expect(backoffDelayMs(40, 0, policy, () => 0.999_999)).toBe(8000)
  })

  it('spreads clients refused together over the whole backoff', () => {
    const waits = new Set(Array.from({ length: 50 }, () => backoffDelayMs(3, 1000, policy)))
    expect(waits.size).toBeGreaterThan(10)
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1000)
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(5000)
  })
})
