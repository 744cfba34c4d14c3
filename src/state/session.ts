import { create } from 'zustand'
import type { Role, SessionInfo } from '../../schema/index.ts'
import { onUnauthorized, setCsrfTokenSource } from '../api/http.ts'
import { getSession, signIn as signInRequest, signOut as signOutRequest } from '../api/session.ts'
import { queryClient } from './query-client.ts'

/** Who is signed in, the session's CSRF token, signing in and out. */

export type SessionStatus =
  /** The first /api/auth/me has not answered yet. */
  | 'loading'
  | 'signed-in'
  | 'signed-out'
  /** /api/auth/me failed for another reason than 401 (backend down, unexpected answer). */
  | 'unavailable'

export interface SessionUser {
  name: string
  role: Role
}

interface SessionState {
  status: SessionStatus
  user: SessionUser | null
  /** The header every state-changing request carries (added by the fetch wrapper in src/api/http.ts). */
  csrfToken: string | null
  /** A local admin session the backend opened by itself; signing out would only re-open it. */
  autoLocal: boolean
  /** Why the session could not be loaded, when status is 'unavailable'. */
  loadError: string | null
  /** Asks the backend who is signed in (on loopback with no users this opens the local admin session). */
  load(): Promise<void>
  /** Rejects with ApiRequestError (401 wrong name or password, 429 too many attempts) for the form to show. */
  signIn(credentials: { name: string; password: string }): Promise<void>
  signOut(): Promise<void>
}

const SIGNED_OUT = {
  status: 'signed-out',
  user: null,
  csrfToken: null,
  autoLocal: false,
  loadError: null,
} as const

function signedIn(session: SessionInfo) {
  return {
    status: 'signed-in',
    user: session.user,
    csrfToken: session.csrfToken,
    autoLocal: session.autoLocal,
    loadError: null,
  } as const
}

let loading: Promise<void> | null = null

export const useSession = create<SessionState>((set) => ({
  status: 'loading',
  user: null,
  csrfToken: null,
  autoLocal: false,
  loadError: null,

  load() {
    // One request at a time: StrictMode's double effects and several 401s at once share it.
    loading ??= (async () => {
      try {
        const session = await getSession()
        set(session ? signedIn(session) : SIGNED_OUT)
      } catch (err) {
        set({ ...SIGNED_OUT, status: 'unavailable', loadError: (err as Error).message })
      } finally {
        loading = null
      }
    })()
    return loading
  },

  async signIn(credentials) {
    const session = await signInRequest(credentials)
    // Nothing cached for the previous user may show for this one.
    queryClient.clear()
    set(signedIn(session))
  },

  async signOut() {
    await signOutRequest()
    queryClient.clear()
    set(SIGNED_OUT)
  },
}))

setCsrfTokenSource(() => useSession.getState().csrfToken)

// A 401 from any other call means the session ended (expired, signed out elsewhere, backend restarted): ask again,
// which shows the sign-in page or, for the local admin, opens a new local session.
onUnauthorized(() => {
  if (useSession.getState().status === 'signed-in') void useSession.getState().load()
})
