import type { FastifyPluginAsync } from 'fastify'
import { type ClientSecretDeps, clientSecretRoutes } from './client-secret-routes.ts'

export type AccessPluginOptions = ClientSecretDeps

/**
 * Access's own route: ephemeral client secrets, `POST /v1/realtime/client_secrets` (contract 5.4). Keys are checked
 * by every feature through `auth.ts`.
 */
export const accessPlugin: FastifyPluginAsync<AccessPluginOptions> = async (app, opts) => {
  clientSecretRoutes(app, opts)
}
