import type { AnchorHTMLAttributes, MouseEvent } from 'react'
import { useRouter } from '../state/router.ts'

/**
 * A real link (it opens in a new tab, copies, works with Enter) that navigates inside the app on a plain click.
 */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const navigate = useRouter((s) => s.navigate)
  return (
    <a
      {...rest}
      href={to}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        onClick?.(event)
        const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey
        if (event.defaultPrevented || event.button !== 0 || modified) return
        event.preventDefault()
        navigate(to)
      }}
    />
  )
}
