import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { createStudio, type StudioOptions } from '../studio/app.ts'
import { openStudioDb, type StudioDb } from '../studio/store/db.ts'
import { type Role, UserStore } from '../studio/store/users.ts'
import type { RunningService } from './service.ts'

/** A real studio backend, with its own throwaway studio.db, on an ephemeral loopback port in front of a test service. */
export interface RunningStudio {
  app: FastifyInstance
  base: string
  db: StudioDb
  users: UserStore
  /** Signs in (creating the user first) and returns the headers a browser would then send. */
  signInAs(role: Role, name?: string): Promise<BrowserHeaders>
  close(): Promise<void>
}

export interface BrowserHeaders {
  cookie: string
  'x-csrf-token': string
}

export async function startStudio(
  svc: RunningService,
  opts: Partial<Omit<StudioOptions, 'upstream' | 'db'>> = {},
): Promise<RunningStudio> {
  const dir = mkdtempSync(join(tmpdir(), 'studio-test-'))
  const db = openStudioDb(dir)
  const app = await createStudio({
    upstream: { baseUrl: svc.baseUrl, apiKey: svc.apiKey, kind: 'embedded' },
    db,
    autoLocalAdmin: false,
    ...opts,
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  const base = `http://127.0.0.1:${address.port}`
  const users = new UserStore(db)
  return {
    app,
    base,
    db,
    users,
    async signInAs(role, name = `${role}-user`) {
      const password = 'correct horse battery'
      if (!users.find(name)) await users.add(name, role, password)
      const res = await fetch(`${base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name, password }),
      })
      if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`)
      return sessionHeaders(res, (await res.json()) as { csrfToken: string })
    },
    async close() {
      await app.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The cookie and CSRF token a browser would hold after this response. */
export function sessionHeaders(res: Response, body: { csrfToken: string }): BrowserHeaders {
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  return { cookie, 'x-csrf-token': body.csrfToken }
}
