import { QueryClient } from '@tanstack/react-query'

/** The app's one react-query cache for server state; the session store clears it when the user changes. */
export const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 60_000, retry: 1 } } })
