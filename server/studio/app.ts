import { existsSync } from 'node:fs'
import { join } from 'node:path'
import httpProxy from '@fastify/http-proxy'
import fastifyStatic from '@fastify/static'
import Fastify, { type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'

/** Where the backend sends the studio's speech requests, and the durable key it injects (never sent to browsers). */
export interface Upstream {
  baseUrl: string
  apiKey: string
  kind: 'embedded' | 'remote'
}

export interface StudioOptions {
  upstream: Upstream
  /** The built single-page app; when absent the backend serves only the API (e.g. under `vite dev`). */
  staticDir?: string
  logger?: FastifyServerOptions['logger']
}

/** Upstream routes the studio may reach, by method. Everything else under /api is refused before forwarding. */
const ALLOWED_UPSTREAM: Array<[string, RegExp]> = [
  ['POST', /^\/v1\/audio\/speech$/],
  ['GET', /^\/v1\/voices$/],
]

function refuse(reply: FastifyReply, status: number, detail: string) {
  return reply.code(status).header('cache-control', 'no-store').send({ detail })
}

export async function createStudio(opts: StudioOptions) {
  const { upstream } = opts
  // Shutdown must not wait on streams whose clients stopped reading.
  const app = Fastify({ logger: opts.logger ?? false, forceCloseConnections: true })

  app.get('/api/health', async () => {
    const health = await fetch(new URL('/health', upstream.baseUrl), { signal: AbortSignal.timeout(2000) })
      .then((r) => (r.ok ? (r.json() as Promise<{ engines?: Record<string, boolean> }>) : null))
      .catch(() => null)
    return {
      status: 'ok',
      upstream: { kind: upstream.kind, reachable: health !== null, engines: health?.engines ?? {} },
    }
  })

  await app.register(httpProxy, {
    upstream: upstream.baseUrl,
    prefix: '/api/v1',
    rewritePrefix: '/v1',
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.replace(/^\/api/, '').split('?')[0] as string
      if (!ALLOWED_UPSTREAM.some(([method, re]) => method === request.method && re.test(path))) {
        return refuse(reply, 404, `The studio does not forward ${request.method} ${path}.`)
      }
    },
    replyOptions: {
      // The browser never holds a key: the backend's key replaces whatever came in, and cookies stay here.
      rewriteRequestHeaders: (_request, headers) => {
        const { cookie: _cookie, ...rest } = headers
        return { ...rest, authorization: `Bearer ${upstream.apiKey}` }
      },
    },
  })

  if (opts.staticDir && existsSync(join(opts.staticDir, 'index.html'))) {
    await app.register(fastifyStatic, { root: opts.staticDir, wildcard: false })
    // Client-side routes fall back to the app; unknown /api paths stay 404s.
    app.setNotFoundHandler((request, reply) =>
      request.url.startsWith('/api/') ? refuse(reply, 404, 'Not found.') : reply.sendFile('index.html'),
    )
  }
  return app
}
