import { type ReactNode, useEffect, useRef, useState } from 'react'
import { healthProblems, useHealth } from '../state/health.ts'
import { type PageId, pagesFor, ROLE_LABELS } from '../state/pages.ts'
import { usePlayback } from '../state/playback.ts'
import { useRouter } from '../state/router.ts'
import { type SessionUser, useSession } from '../state/session.ts'
import { Link } from './Link.tsx'

const TITLE = 'Speech Studio'

/** The frame without a session (signing in, loading, backend unavailable): title and content, nothing else. */
export function PlainShell({ title, children }: { title: string; children: ReactNode }) {
  useDocumentTitle(title)
  return (
    <>
      <header className="app-header">
        <span className="app-title">{TITLE}</span>
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}

/**
 * The signed-in frame: title, the pages this role may use, who is signed in, sign out, and a banner when the
 * speech service or one of its engines is missing. `current` is the open page (null on a not-found or
 * not-allowed path).
 */
export function AppShell({
  user,
  autoLocal,
  current,
  title,
  children,
}: {
  user: SessionUser
  autoLocal: boolean
  current: PageId | null
  title: string
  children: ReactNode
}) {
  useDocumentTitle(title)
  useFocusHeadingOnNavigation()
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header app-header-signed-in">
        <span className="app-title">{TITLE}</span>
        <nav aria-label="Main">
          <ul>
            {pagesFor(user.role).map((page) => (
              <li key={page.id}>
                <Link to={page.path} aria-current={page.id === current ? 'page' : undefined}>
                  {page.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <SessionControls user={user} autoLocal={autoLocal} />
      </header>
      <main id="main" className="app-main" tabIndex={-1}>
        <HealthBanner />
        {children}
      </main>
    </>
  )
}

function SessionControls({ user, autoLocal }: { user: SessionUser; autoLocal: boolean }) {
  const signOut = useSession((s) => s.signOut)
  const stopPlayback = usePlayback((s) => s.stop)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  return (
    <div className="session">
      <p className="who">
        {autoLocal ? (
          'Signed in as local admin'
        ) : (
          <>
            Signed in as <strong>{user.name}</strong> ({ROLE_LABELS[user.role]})
          </>
        )}
      </p>
      {/* The backend re-opens a local admin session at once, so signing out of one would do nothing. */}
      {!autoLocal && (
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true)
            setError(null)
            try {
              await stopPlayback()
              await signOut()
            } catch (err) {
              setError(`Could not sign out: ${(err as Error).message}`)
              setBusy(false)
            }
          }}
        >
          Sign out
        </button>
      )}
      {error && (
        <p role="alert" className="session-error">
          {error}
        </p>
      )}
    </div>
  )
}

/** Nothing while all is well (so it adds no live region); role=alert with one line per problem otherwise. */
function HealthBanner() {
  const { data, error } = useHealth()
  const problems = healthProblems(data, error)
  if (problems.length === 0) return null
  return (
    <div role="alert" className="health-banner">
      {problems.map((problem) => (
        <p key={problem}>{problem}</p>
      ))}
    </div>
  )
}

function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · ${TITLE}`
  }, [title])
}

/**
 * After an in-app navigation (not on first load), focus moves to the new page's heading so keyboard and
 * screen-reader users start at the top of what changed.
 */
function useFocusHeadingOnNavigation() {
  const path = useRouter((s) => s.path)
  const previous = useRef(path)
  useEffect(() => {
    if (previous.current === path) return
    previous.current = path
    const main = document.querySelector('main')
    if (!main) return
    const focusHeading = () => {
      const heading = main.querySelector<HTMLElement>('h1')
      if (!heading) return false
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1')
      heading.focus()
      return true
    }
    if (focusHeading()) return
    // A page opened for the first time loads as its own chunk: its heading arrives after the loading note.
    const observer = new MutationObserver(() => {
      if (focusHeading()) observer.disconnect()
    })
    observer.observe(main, { childList: true, subtree: true })
    return () => observer.disconnect()
  }, [path])
}
