import type { Role } from '../../schema/index.ts'

/**
 * Who reaches the studio's own shared resources (those kept by the backend for the whole studio rather than per
 * user). The studio has no organisations or workspaces: one studio is one workspace, and every designer in it shares
 * these. Admins reach everything. Upstream routes have their own table (proxy/access.ts).
 */
export type StudioResource = 'pronunciations'
export type StudioAction = 'read' | 'edit'

const RULES: Record<StudioResource, Record<StudioAction, readonly Role[]>> = {
  // The script page's lexicon: designers read it to preview and edit it together.
  pronunciations: { read: ['designer'], edit: ['designer'] },
}

export function mayUse(role: Role, resource: StudioResource, action: StudioAction): boolean {
  return role === 'admin' || RULES[resource][action].includes(role)
}
