import { create } from 'zustand'

/** Client-side routing on the History API: the current path, and navigation that the back button undoes. */

interface RouterState {
  path: string
  navigate(path: string, opts?: { replace?: boolean }): void
}

function locationPath(): string {
  return typeof window === 'undefined' ? '/' : window.location.pathname
}

export const useRouter = create<RouterState>((set) => ({
  path: locationPath(),
  navigate(path, opts) {
    if (path !== window.location.pathname) {
      if (opts?.replace) window.history.replaceState(null, '', path)
      else window.history.pushState(null, '', path)
    }
    set({ path })
  },
}))

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => useRouter.setState({ path: locationPath() }))
}
