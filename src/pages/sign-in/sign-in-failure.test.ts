import { describe, expect, it } from 'vitest'
import { ApiRequestError } from '../../api/http.ts'
import { formatWait, signInFailure } from './sign-in-failure.ts'

/** The backend's refusal in its envelope (server/studio/errors.ts). */
const refusal = (status: number, code: string, message: string, retryAfter: number | null = null) =>
  new ApiRequestError(
    status,
    { error: { message, type: 'authentication_error', param: null, code }, request_id: 'req-1' },
    null,
    retryAfter,
  )

describe('signInFailure', () => {
  it("shows the backend's words for a wrong password", () => {
    expect(signInFailure(refusal(401, 'wrong_credentials', 'Wrong name or password.'))).toBe(
      'Wrong name or password.',
    )
    expect(signInFailure(new ApiRequestError(401, null, null))).toBe('Wrong name or password.')
  })

  it('adds how long to wait after too many attempts', () => {
    const err = refusal(429, 'rate_limited', 'Too many attempts.', 60)
    expect(signInFailure(err)).toBe('Too many attempts. You can try again in 1 minute.')
    expect(signInFailure(refusal(429, 'rate_limited', 'Too many attempts.'))).toBe('Too many attempts.')
  })

  it('explains other failures', () => {
    expect(signInFailure(new TypeError('Failed to fetch'))).toMatch(/not answering/)
    expect(signInFailure(new ApiRequestError(500, null, null))).toBe(
      'Could not sign in: The service answered 500.',
    )
  })

  it('formats waits', () => {
    expect(formatWait(1)).toBe('1 second')
    expect(formatWait(45)).toBe('45 seconds')
    expect(formatWait(61)).toBe('2 minutes')
  })
})
