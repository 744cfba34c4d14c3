import type { Role } from '../../schema/index.ts'

/** The studio's pages, which roles may use them, and how a URL path resolves to one. Pure: no React, no DOM. */

export type PageId = 'script' | 'voices' | 'transcripts'

export interface PageInfo {
  id: PageId
  path: string
  /** The link text in the main navigation. */
  label: string
  /** The document title while the page is open. */
  title: string
}

/** In navigation order. */
export const PAGES: readonly PageInfo[] = [
  { id: 'script', path: '/script', label: 'Script', title: 'Script' },
  { id: 'voices', path: '/voices', label: 'Voices', title: 'Voices' },
  { id: 'transcripts', path: '/transcripts', label: 'Transcripts', title: 'Transcripts' },
]

const PAGES_BY_ROLE: Record<Role, readonly PageId[]> = {
  designer: ['script'],
  consent_admin: ['voices'],
  reviewer: ['transcripts'],
  admin: ['script', 'voices', 'transcripts'],
}

export const ROLE_LABELS: Record<Role, string> = {
  designer: 'voice designer',
  consent_admin: 'consent administrator',
  reviewer: 'reviewer',
  admin: 'administrator',
}

/** The pages a role may use, in navigation order. */
export function pagesFor(role: Role): PageInfo[] {
  const allowed = PAGES_BY_ROLE[role]
  return PAGES.filter((p) => allowed.includes(p.id))
}

export function mayUse(role: Role, page: PageId): boolean {
  return PAGES_BY_ROLE[role].includes(page)
}

/** The roles that may use a page, for telling people who to ask. */
export function rolesFor(page: PageId): Role[] {
  return (Object.keys(PAGES_BY_ROLE) as Role[]).filter((r) => PAGES_BY_ROLE[r].includes(page))
}

export type Resolved =
  | { kind: 'page'; page: PageInfo }
  /** A page that exists but that this role may not use. */
  | { kind: 'forbidden'; page: PageInfo }
  | { kind: 'not-found'; path: string }

function normalize(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed.toLowerCase()
}

/** What to show at `path` for `role`. '/' is the role's first page. */
export function resolvePath(path: string, role: Role): Resolved {
  const normalized = normalize(path)
  if (normalized === '/') {
    const [home] = pagesFor(role)
    return home ? { kind: 'page', page: home } : { kind: 'not-found', path }
  }
  const page = PAGES.find((p) => p.path === normalized)
  if (!page) return { kind: 'not-found', path }
  return mayUse(role, page.id) ? { kind: 'page', page } : { kind: 'forbidden', page }
}
