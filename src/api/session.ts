import { queryOptions } from '@tanstack/react-query'
import { type SessionInfo, sessionSchema, signInSetupSchema } from '../../schema/index.ts'
import { apiFetch, apiJson, errorFrom } from './http.ts'

/**
 * Signing in and out of the studio backend (`/api/auth/*`, shapes in `schema/session.ts`). The session store
 * (src/state/session.ts) holds what these answer.
 */

/**
 * The current session, or null when nobody is signed in (401). On loopback with no users yet the backend opens
 * a local admin session on this call.
 */
export async function getSession(): Promise<SessionInfo | null> {
  const response = await apiFetch('/auth/me')
  if (response.status === 401) return null
  if (!response.ok) throw await errorFrom(response)
  return sessionSchema.parse(await response.json())
}

/** Whether the studio has any user yet: without one, the sign-in page says how the first is made. */
export const signInSetupQuery = queryOptions({
  queryKey: ['auth', 'setup'] as const,
  queryFn: ({ signal }) => apiJson('/auth/setup', (b) => signInSetupSchema.parse(b), { signal }),
})

/** Signs in; a wrong name or password rejects with ApiRequestError 401, too many attempts with 429. */
export async function signIn(credentials: { name: string; password: string }): Promise<SessionInfo> {
  return apiJson('/auth/sign-in', (body) => sessionSchema.parse(body), { method: 'POST', json: credentials })
}

export async function signOut(): Promise<void> {
  const response = await apiFetch('/auth/sign-out', { method: 'POST' })
  // 401: the session had already ended, which is what signing out wants.
  if (!response.ok && response.status !== 401) throw await errorFrom(response)
}
