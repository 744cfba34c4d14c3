import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { dropPostgresSchema } from '../storage/index.ts'
import { TEST_BACKEND, TEST_DATABASE_URL } from '../testing/backends.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'

/**
 * The service and its database (docs/deploy.md, "The speech service: storage"): `/health` reports it, and a
 * PostgreSQL that stops answering turns every request that needs it into the contract's 503 — never a 401 for a good key
 * or a 404 for an existing voice — until it is back.
 */
const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const health = async (svc: RunningService) => {
  const res = await fetch(`${svc.baseUrl}/health`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}
const catalog = (svc: RunningService, key = svc.apiKey) =>
  fetch(`${svc.baseUrl}/v1/voices?model=svc-tts-2-latest`, { headers: { authorization: `Bearer ${key}` } })

describe('the service’s database', () => {
  it('is reported by /health: backend, reachable, latency', async () => {
    const svc = await startSpeechService()
    cleanups.push(() => svc.close())
    const { status, body } = await health(svc)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      status: 'ok',
      database: { backend: TEST_BACKEND, reachable: true, latency_ms: expect.any(Number) },
    })
    expect((body.database as { latency_ms: number }).latency_ms).toBeLessThan(1000)
  })

  // A database that can be cut off is a networked one: in the `postgres` project, behind a relay the test controls.
  it.runIf(TEST_BACKEND === 'postgres')(
    'lost while running: 503 in the contract’s shape and an unhealthy /health, then back to work when it returns',
    async () => {
      const relay = await startRelay(new URL(TEST_DATABASE_URL))
      cleanups.push(() => relay.close())
      const url = new URL(TEST_DATABASE_URL)
      url.port = String(relay.port)
      url.hostname = '127.0.0.1'
      const schema = `speech_test_loss_${randomBytes(5).toString('hex')}`
      cleanups.push(() => dropPostgresSchema(TEST_DATABASE_URL, schema))
      const dir = mkdtempSync(join(tmpdir(), 'speech-db-loss-'))
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
      const svc = await startSpeechService({ dataDir: dir, databaseUrl: url.href, databaseSchema: schema })
      cleanups.push(() => svc.close())
      expect((await catalog(svc)).status).toBe(200)

      relay.cut()
      for (const key of [svc.apiKey, 'sk_not-a-key']) {
        const res = await catalog(svc, key)
        expect(res.status).toBe(503)
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(await res.json()).toEqual({
          error: {
            message: expect.stringMatching(/database/),
            type: 'server_error',
            param: null,
            code: 'service_unavailable',
          },
          request_id: expect.stringMatching(/^req_/),
        })
      }
      const down = await health(svc)
      expect(down.status).toBe(503)
      expect(down.body).toMatchObject({ status: 'unavailable', database: { reachable: false } })

      await relay.restore()
      await expect.poll(async () => (await catalog(svc)).status, { timeout: 10_000 }).toBe(200)
      expect((await health(svc)).status).toBe(200)
    },
  )
})

/** A TCP relay to the database that can be cut (connections reset, new ones refused) and restored on the same port. */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a)
      a.on('error', () => b.destroy())
      a.on('close', () => {
        sockets.delete(a)
        b.destroy()
      })
      a.pipe(b)
    }
  })
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
    )
  const port = await listen(0)
  return {
    port,
    cut() {
      server.close()
      for (const socket of sockets) socket.destroy()
    },
    restore: () => listen(port),
    close() {
      server.close()
      for (const socket of sockets) socket.destroy()
    },
  }
}
