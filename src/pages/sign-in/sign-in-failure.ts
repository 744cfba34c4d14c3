import { ApiRequestError } from '../../api/http.ts'

export function formatWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`
  const minutes = Math.ceil(seconds / 60)
  return minutes === 1 ? '1 minute' : `${minutes} minutes`
}

/** The sentence to show when signing in failed. */
export function signInFailure(err: unknown): string {
  if (err instanceof ApiRequestError) {
    // The backend's own words when it sent them ("Wrong name or password.", "Too many attempts…").
    if (err.status === 401) return err.body ? err.message : 'Wrong name or password.'
    if (err.status === 429) {
      const said = err.body ? err.message : 'Too many attempts.'
      return err.retryAfterSeconds === null
        ? said
        : `${said} You can try again in ${formatWait(err.retryAfterSeconds)}.`
    }
    return `Could not sign in: ${err.message}`
  }
  if (err instanceof TypeError) return 'Could not sign in: the studio backend is not answering.'
  return `Could not sign in: ${(err as Error).message}`
}
