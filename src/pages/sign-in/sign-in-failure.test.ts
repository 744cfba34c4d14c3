import { describe, expect, it } from 'vitest'
import { ApiRequestError } from '../../api/http.ts'
import { formatWait, signInFailure } from './sign-in-failure.ts'

describe('signInFailure', () => {
  it("shows the backend's words for a wrong password", () => {
    expect(signInFailure(new ApiRequestError(401, { detail: 'Wrong name or password.' }, null))).toBe(
      'Wrong name or password.',
    )
    expect(signInFailure(new ApiRequestError(401, null, null))).toBe('Wrong name or password.')
  })

  it('adds how long to wait after too many attempts', () => {
    const err = new ApiRequestError(429, { detail: 'Too many attempts.' }, null, 60)
    expect(signInFailure(err)).toBe('Too many attempts. You can try again in 1 minute.')
    expect(signInFailure(new ApiRequestError(429, { detail: 'Too many attempts.' }, null))).toBe(
      'Too many attempts.',
    )
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
