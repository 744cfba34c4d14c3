import type { Role } from '../../schema/index.ts'

/**
 * Who reaches the studio's own resources, those the backend keeps rather than relays. The studio has no
 * organisations or workspaces: one studio is one workspace. Admins reach everything. Upstream routes have their own
 * table (proxy/access.ts).
 */
export type StudioResource = 'scripts' | 'takes' | 'erasable takes' | 'pronunciations'
export type StudioAction = 'read' | 'edit'

const RULES: Record<StudioResource, Record<StudioAction, readonly Role[]>> = {
  // Each designer's own scripts and their takes (the stores scope them to their owner).
  scripts: { read: ['designer'], edit: ['designer'] },
  takes: { read: ['designer'], edit: ['designer'] },
  // How many takes a revocation would erase, asked before revoking a voice or a consent.
  'erasable takes': { read: ['consent_admin'], edit: [] },
  // The script page's lexicon, shared: designers read it to preview and edit it together.
  pronunciations: { read: ['designer'], edit: ['designer'] },
}

export function mayUse(role: Role, resource: StudioResource, action: StudioAction): boolean {
  return role === 'admin' || RULES[resource][action].includes(role)
}

/** A request's action on a resource: reading is GET and HEAD, anything else edits. */
export const actionOf = (method: string): StudioAction =>
  method === 'GET' || method === 'HEAD' ? 'read' : 'edit'
