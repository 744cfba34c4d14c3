import cookie from '@fastify/cookie'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { SESSION_TTL_SECONDS, type Session, type SessionStore } from './store/sessions.ts'
import type { Role, UserStore } from './store/users.ts'

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
  signInLimit?: { attempts: number; windowMs: number }
}

const LOCAL_ADMIN: StudioUser = { name: 'local admin', role: 'admin', autoLocal: true }
const signInSchema = z.strictObject({
  name: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
})
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** Failed sign-ins per client address within a sliding window. */
class SignInLimiter {
  private readonly failures = new Map<string, number[]>()
  constructor(private readonly limit: { attempts: number; windowMs: number }) {}

  /** Milliseconds to wait before the next attempt, or 0 when one is allowed. */
  retryAfter(key: string): number {
    const now = Date.now()
    const recent = (this.failures.get(key) ?? []).filter((t) => now - t < this.limit.windowMs)
    this.failures.set(key, recent)
    const oldest = recent[0]
    return recent.length >= this.limit.attempts && oldest !== undefined
      ? oldest + this.limit.windowMs - now
      : 0
  }

  fail(key: string) {
    this.failures.set(key, [...(this.failures.get(key) ?? []), Date.now()])
  }

  succeed(key: string) {
    this.failures.delete(key)
  }
}

const detail = (reply: FastifyReply, status: number, message: string) =>
  reply.code(status).header('cache-control', 'no-store').send({ detail: message })

/**
 * Sign-in, sessions in httpOnly SameSite=Strict cookies, CSRF tokens on every state-changing request, and the
 * automatic local admin. Registers `/api/auth/*` and resolves `request.studioUser` for every request.
 */
export async function registerAuth(app: FastifyInstance, opts: AuthOptions) {
  const { users, sessions } = opts
  const limiter = new SignInLimiter(opts.signInLimit ?? { attempts: 5, windowMs: 60_000 })
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

  const describe = (request: FastifyRequest) => ({
    user: request.studioUser && { name: request.studioUser.name, role: request.studioUser.role },
    csrfToken: request.studioSession?.csrfToken,
    autoLocal: request.studioUser?.autoLocal ?? false,
  })

  const startSession = (
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number | null,
    user: StudioUser,
  ) => {
    const { token, session } = sessions.create(userId)
    setCookie(reply, token)
    request.studioSession = session
    request.studioUser = user
  }

  app.addHook('onRequest', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    const session = token ? sessions.get(token) : undefined
    if (session) {
      if (session.userId === null) {
        // An automatic session is void once real users exist.
        if (opts.autoLocalAdmin && users.count() === 0) {
          request.studioSession = session
          request.studioUser = LOCAL_ADMIN
        }
      } else {
        const user = users.byId(session.userId)
        if (user) {
          request.studioSession = session
          request.studioUser = { name: user.name, role: user.role, autoLocal: false }
        }
      }
    }
    if (!UNSAFE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return
    if (request.url === '/api/auth/sign-in') return
    const sent = request.headers[CSRF_HEADER]
    if (!request.studioSession || sent !== request.studioSession.csrfToken) {
      return detail(reply, 403, 'Missing or invalid CSRF token.')
    }
  })

  app.get('/api/auth/me', async (request, reply) => {
    if (!request.studioUser && opts.autoLocalAdmin && users.count() === 0) {
      startSession(request, reply, null, LOCAL_ADMIN)
    }
    if (!request.studioUser) return detail(reply, 401, 'Not signed in.')
    return reply.header('cache-control', 'no-store').send(describe(request))
  })

  app.post('/api/auth/sign-in', async (request, reply) => {
    const parsed = signInSchema.safeParse(request.body)
    if (!parsed.success) return detail(reply, 400, 'Send a name and a password.')
    // Counted per address and name: guesses at one account are slowed without locking every other person out
    // of a studio whose users share an address (an office behind one NAT, or every test on 127.0.0.1).
    const key = `${request.ip}\n${parsed.data.name.trim().toLowerCase()}`
    const wait = limiter.retryAfter(key)
    if (wait > 0) {
      return reply
        .header('retry-after', String(Math.ceil(wait / 1000)))
        .code(429)
        .send({ detail: 'Too many attempts. Wait a minute, then try again.' })
    }
    const user = await users.verify(parsed.data.name, parsed.data.password)
    if (!user) {
      limiter.fail(key)
      return detail(reply, 401, 'Wrong name or password.')
    }
    limiter.succeed(key)
    startSession(request, reply, user.id, { name: user.name, role: user.role, autoLocal: false })
    return reply.header('cache-control', 'no-store').send(describe(request))
  })

  app.post('/api/auth/sign-out', async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) sessions.delete(token)
    return reply.clearCookie(SESSION_COOKIE, { path: '/' }).code(204).send()
  })
}
