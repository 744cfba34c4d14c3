import type { FastifyRequest } from 'fastify'
import { durableKeyRequired, invalidKey, missingKey, missingPermission } from '../errors.ts'
import type { KeyStore, Permission, Principal } from './key-store.ts'

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal
  }
}

/**
 * Resolves `Authorization: Bearer <key>` to a principal holding `permission`, or throws the contract's envelope. With
 * `durableFor`, ephemeral credentials are refused first (contract 5.4), whatever permissions they carry.
 */
export async function authenticate(
  keys: KeyStore,
  request: FastifyRequest,
  permission: Permission,
  durableFor?: string,
): Promise<Principal> {
  const header = request.headers.authorization
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (!match) throw missingKey()
  const principal = await keys.authenticate(match[1] as string)
  if (!principal) throw invalidKey()
  if (durableFor && principal.kind === 'ephemeral') throw durableKeyRequired(durableFor)
  if (!principal.permissions.has(permission)) throw missingPermission(permission)
  request.principal = principal
  return principal
}
