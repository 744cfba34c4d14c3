import { type ComponentType, lazy, Suspense, useEffect } from 'react'
import { consentLinkToken } from './api/consent-requests.ts'
import { AppShell, PlainShell } from './components/AppShell.tsx'
import { NotFoundPage } from './pages/not-found/NotFoundPage.tsx'
import { SignInPage } from './pages/sign-in/SignInPage.tsx'
import { type PageId, resolvePath } from './state/pages.ts'
import { useRouter } from './state/router.ts'
import { useSession } from './state/session.ts'

/** Each page is its own chunk, so a user downloads only the pages they open (the first one within budget). */
const PAGE_COMPONENTS: Record<PageId, ComponentType> = {
  script: lazy(() => import('./pages/script/ScriptPage.tsx').then((m) => ({ default: m.ScriptPage }))),
  voices: lazy(() => import('./pages/voices/VoicesPage.tsx').then((m) => ({ default: m.VoicesPage }))),
  transcripts: lazy(() =>
    import('./pages/transcripts/TranscriptsPage.tsx').then((m) => ({ default: m.TranscriptsPage })),
  ),
}

/** The page a voice's owner opens from a consent link: no account, no session (pages/voices/ConsentLinkPage.tsx). */
const ConsentLinkPage = lazy(() =>
  import('./pages/voices/ConsentLinkPage.tsx').then((m) => ({ default: m.ConsentLinkPage })),
)

export function App() {
  const path = useRouter((s) => s.path)
  const token = consentLinkToken(path)
  if (token)
    return (
      <PlainShell title="Record your consent">
        <Suspense fallback={<p role="status">Loading the page…</p>}>
          <ConsentLinkPage token={token} />
        </Suspense>
      </PlainShell>
    )
  return <StudioApp path={path} />
}

function StudioApp({ path }: { path: string }) {
  const { status, user, autoLocal, loadError, load } = useSession()

  useEffect(() => {
    void load()
  }, [load])

  if (status === 'loading') {
    return (
      <PlainShell title="Loading">
        <p>Loading…</p>
      </PlainShell>
    )
  }
  if (status === 'signed-out') {
    return (
      <PlainShell title="Sign in">
        <SignInPage />
      </PlainShell>
    )
  }
  if (status === 'unavailable' || !user) {
    return (
      <PlainShell title="Studio unavailable">
        <section aria-labelledby="unavailable-heading" className="page">
          <h1 id="unavailable-heading">The studio backend is not available</h1>
          <p>
            Could not find out who is signed in: {loadError ?? 'no answer.'} Check that the studio is running
            (npm start), then try again.
          </p>
          <button type="button" onClick={() => void load()}>
            Try again
          </button>
        </section>
      </PlainShell>
    )
  }

  const resolved = resolvePath(path, user.role)
  const Page = resolved.kind === 'page' ? PAGE_COMPONENTS[resolved.page.id] : null
  return (
    <AppShell
      user={user}
      autoLocal={autoLocal}
      current={resolved.kind === 'page' ? resolved.page.id : null}
      title={resolved.kind === 'not-found' ? 'No such page' : resolved.page.title}
    >
      {Page ? (
        // A boundary per page: the previous page leaves at once instead of lingering hidden while the next loads.
        <Suspense
          key={resolved.kind === 'page' ? resolved.page.id : 'none'}
          fallback={<p role="status">Loading the page…</p>}
        >
          <Page />
        </Suspense>
      ) : (
        <NotFoundPage role={user.role} forbidden={resolved.kind === 'forbidden' ? resolved.page : null} />
      )}
    </AppShell>
  )
}
