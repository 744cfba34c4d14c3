import { z } from 'zod'

/** The studio's roles: each user has one (docs/security.md says what each may reach). */
export const ROLES = ['designer', 'consent_admin', 'reviewer', 'admin'] as const
export type Role = (typeof ROLES)[number]

/** `GET /api/auth/me` and a successful `POST /api/auth/sign-in`: who is signed in, and the session's CSRF token. */
export const sessionSchema = z.object({
  user: z.object({ name: z.string(), role: z.enum(ROLES) }),
  csrfToken: z.string().min(1),
  /** A local admin session the backend opened by itself (loopback, embedded service, no users yet). */
  autoLocal: z.boolean(),
})
export type SessionInfo = z.infer<typeof sessionSchema>

/** `GET /api/auth/setup`: whether any user exists, so the sign-in page can say how the first one is made. */
export const signInSetupSchema = z.object({ hasUsers: z.boolean() })
export type SignInSetup = z.infer<typeof signInSetupSchema>
