import type { Role } from '../../../schema/index.ts'
import { Link } from '../../components/Link.tsx'
import { type PageInfo, pagesFor, ROLE_LABELS, rolesFor } from '../../state/pages.ts'

/** A path that is no page, or a page this role may not use; either way, links to the pages it may. */
export function NotFoundPage({ role, forbidden }: { role: Role; forbidden: PageInfo | null }) {
  const allowed = pagesFor(role)
  return (
    <section aria-labelledby="not-found-heading" className="page">
      <h1 id="not-found-heading">{forbidden ? `${forbidden.label} is not open to you` : 'No such page'}</h1>
      <p>
        {forbidden
          ? `${forbidden.label} is open to the ${rolesFor(forbidden.id)
              .map((r) => ROLE_LABELS[r])
              .join(' and ')} roles; your role is ${ROLE_LABELS[role]}. Ask an administrator if you need it.`
          : 'There is no page at this address.'}
      </p>
      {allowed.length > 0 && (
        <>
          <h2>Your pages</h2>
          <ul>
            {allowed.map((page) => (
              <li key={page.id}>
                <Link to={page.path}>{page.label}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}
