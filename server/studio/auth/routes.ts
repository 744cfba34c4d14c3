import cookie from '@fastify/cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import type { Role, SessionInfo } from '../../../schema/index.ts'
import { actionOf, mayUse, type StudioResource } from '../access.ts'
import {
  csrfRefused,
  forbiddenForRole,
  invalidBody,
  notSignedIn,
  rateLimited,
  refuse,
  signInUnavailable,
  wrongCredentials,
} from '../errors.ts'
import { SESSION_TTL_SECONDS, type Session, type SessionStore } from './sessions.ts'
import {
  HashGate,
  HashGateFullError,
  RedisSignInLimiter,
  type SignInCounter,
  type SignInLimit,
  SignInLimiter,
} from './sign-in-limit.ts'
import type { UserStore } from './users.ts'

export const SESSION_COOKIE = 'studio_session'
export const CSRF_HEADER = 'x-csrf-token'

export interface StudioUser {
  name: string
  role: Role
  /** The automatic local admin: loopback, embedded service, no users yet. */
  autoLocal: boolean
}

declare module 'fastify' {
  interface FastifyRequest {
    studioUser: StudioUser | null
    studioSession: Session | null
  }
}

export interface AuthOptions {
  users: UserStore
  sessions: SessionStore
  /** Whether a visitor may get an admin session without signing in while no user exists (never off loopback). */
  autoLocalAdmin: boolean
  signInLimit?: SignInLimit
  /**
   * Count sign-in attempts in this Redis (shared by every instance) instead of in memory; the caller owns the
   * connection. `prefix` starts every key (default `studio:sign-in:`).
   */
  redis?: { client: Redis; prefix?: string }
  /** Password checks at once, and waiting; more sign-ins than both are answered 503 (sign-in-limit.ts). */
  hashing?: { concurrency: number; queue: number }
}

const SIGN_IN_ROUTE = '/api/auth/sign-in'
/**
 * The owner's sending of a consent through a consent link (consent-requests/routes.ts): no session, so no CSRF token;
 * the link's token is its authority and the route checks the page's Origin itself.
 */
export const CONSENT_LINK_ROUTE = '/api/consent-links/:token'

const LOCAL_ADMIN: StudioUser = { name: 'local admin', role: 'admin', autoLocal: true }
const signInSchema = z.strictObject({
  name: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
})
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The signed-in user's name, in a route whose guard has already refused anyone else. */
export function signedInName(request: FastifyRequest): string {
  const user = request.studioUser
  if (!user) throw new Error(`${request.method} ${request.routeOptions.url} ran without a signed-in user`)
  return user.name
}

/**
 * A scope's guard, run on request before its body is read: signed in, with a role the access table (access.ts) lets
 * use `resource` for what the method does; `forbidden` says who may.
 */
export function requireAccess(resource: StudioResource, forbidden: string) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.studioUser
    if (!user) return refuse(reply, notSignedIn())
    if (!mayUse(user.role, resource, actionOf(request.method)))
      return refuse(reply, forbiddenForRole(forbidden))
  }
}

/**
 * Sign-in, sessions in httpOnly SameSite=Strict cookies, CSRF tokens on every state-changing request, and the
 * automatic local admin. Registers `/api/auth/*` and resolves `request.studioUser` for every request.
 */
export async function registerAuth(app: FastifyInstance, opts: AuthOptions) {
  const { users, sessions } = opts
  const limit = opts.signInLimit ?? { attempts: 5, windowMs: 60_000 }
  const limiter: SignInCounter = opts.redis
    ? new RedisSignInLimiter(opts.redis.client, limit, opts.redis.prefix)
    : new SignInLimiter(limit)
  // Two cores here: two scrypts at once use them; a short queue absorbs a team signing in together.
  const hashing = new HashGate(opts.hashing ?? { concurrency: 2, queue: 16 })
  await app.register(cookie)
  app.decorateRequest('studioUser', null)
  app.decorateRequest('studioSession', null)

  const setCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      maxAge: SESSION_TTL_SECONDS,
      secure: false,
    })

  /** The answer of /api/auth/me and of a sign-in, in the shape the browser parses (schema/session.ts). */
  const describe = (user: StudioUser, session: Session): SessionInfo => ({
    user: { name: user.name, role: user.role },
    csrfToken: session.csrfToken,
    autoLocal: user.autoLocal,
  })

  const startSession = async (
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number | null,
    user: StudioUser,
  ) => {
    const { token, session } = await sessions.create(userId)
    setCookie(reply, token)
    request.studioSession = session
    request.studioUser = user
    return session
  }

  app.addHook('onRequest', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    // Read from the database on every request (one query, no cache), so revocation anywhere holds here at once.
    const found = token ? await sessions.get(token) : undefined
    if (found) {
      if (found.user === null) {
        // An automatic session is void once real users exist.
        if (opts.autoLocalAdmin && (await users.count()) === 0) {
          request.studioSession = found.session
          request.studioUser = LOCAL_ADMIN
        }
      } else {
        request.studioSession = found.session
        request.studioUser = { name: found.user.name, role: found.user.role, autoLocal: false }
      }
    }
    // Every state-changing request needs the token, whatever its path looks like: the route the router chose is
    // what counts, never the raw URL (`/%61pi/scripts` routes to /api/scripts but does not start with "/api/").
    if (!UNSAFE_METHODS.has(request.method)) return
    if (
      request.method === 'POST' &&
      [SIGN_IN_ROUTE, CONSENT_LINK_ROUTE].includes(request.routeOptions.url ?? '')
    )
      return
    const sent = request.headers[CSRF_HEADER]
    if (!request.studioSession || sent !== request.studioSession.csrfToken) {
      return refuse(reply, csrfRefused())
    }
  })

  app.get('/api/auth/me', async (request, reply) => {
    if (!request.studioUser && opts.autoLocalAdmin && (await users.count()) === 0) {
      await startSession(request, reply, null, LOCAL_ADMIN)
    }
    if (!request.studioUser || !request.studioSession) return refuse(reply, notSignedIn())
    return reply.header('cache-control', 'no-store').send(describe(request.studioUser, request.studioSession))
  })

  // Whether anyone can sign in yet, for the sign-in page: a studio with no users and no automatic admin (one started
  // against a remote service, or off loopback) says how the first user is made. Telling a stranger that no account
  // exists gives nothing away: there is nothing to sign in to, and the users CLI runs only on the studio's machine.
  app.get('/api/auth/setup', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ hasUsers: (await users.count()) > 0 }),
  )

  app.post(SIGN_IN_ROUTE, async (request, reply) => {
    const parsed = signInSchema.safeParse(request.body)
    if (!parsed.success) return refuse(reply, invalidBody(null, 'Send a name and a password.'))
    // Counted per address and name: guesses at one account are slowed without locking every other person out
    // of a studio whose users share an address (an office behind one NAT, or every test on 127.0.0.1).
    const key = `${request.ip}\n${parsed.data.name.trim().toLowerCase()}`
    let counted: { wait: number; attempt: string }
    try {
      counted = await limiter.begin(key)
    } catch (err) {
      // Redis did not answer: no attempt goes uncounted, so none goes ahead.
      request.log.error({ err: (err as Error).message }, 'sign-in counter unavailable')
      return refuse(
        reply,
        signInUnavailable('Signing in is not possible for a moment. Try again shortly.', 5),
      )
    }
    const { wait, attempt } = counted
    if (wait > 0) {
      return refuse(reply, rateLimited(Math.ceil(wait / 1000)))
    }
    let user: Awaited<ReturnType<UserStore['verify']>>
    try {
      user = await hashing.run(() => users.verify(parsed.data.name, parsed.data.password))
    } catch (err) {
      if (!(err instanceof HashGateFullError)) throw err
      await limiter.cancel(key, attempt).catch(() => {}) // at worst the refused attempt stays counted
      return refuse(reply, signInUnavailable('Many people are signing in at once. Try again in a moment.', 1))
    }
    if (!user) return refuse(reply, wrongCredentials())
    // At worst (Redis gone meanwhile) earlier failures stay counted until the window passes.
    await limiter
      .succeed(key)
      .catch((err) => request.log.warn({ err: (err as Error).message }, 'sign-in count not cleared'))
    const signedIn: StudioUser = { name: user.name, role: user.role, autoLocal: false }
    const session = await startSession(request, reply, user.id, signedIn)
    return reply.header('cache-control', 'no-store').send(describe(signedIn, session))
  })

  app.post('/api/auth/sign-out', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) await sessions.delete(token)
    return reply.clearCookie(SESSION_COOKIE, { path: '/' }).code(204).send()
  })
}
