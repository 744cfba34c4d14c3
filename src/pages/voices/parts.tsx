import { type ReactNode, type RefObject, useEffect, useId, useRef, useState } from 'react'
import type { Role } from '../../../schema/index.ts'
import type { AuditEvent } from '../../api/audit.ts'
import { ROLE_LABELS } from '../../state/pages.ts'
import type { Failure } from './failures.ts'
import { formatWhen, shortId } from './format.ts'

/** Small building blocks of the voices page. */

/** An id, shortened, with a button that copies the whole id. The id is never written to the console. */
export function IdBadge({ id, what }: { id: string; what: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  useEffect(() => {
    if (copied === null) return
    const timer = setTimeout(() => setCopied(null), 2500)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <span className="id-badge">
      <code>{shortId(id)}</code>
      <button
        type="button"
        className="small"
        aria-label={`Copy the ${what} id`}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(id)
            setCopied('yes')
          } catch {
            setCopied('failed')
          }
        }}
      >
        {copied === 'yes' ? 'Copied' : 'Copy'}
      </button>
      <span aria-live="polite" className="visually-hidden">
        {copied === 'yes'
          ? `${what} id copied`
          : copied === 'failed'
            ? 'Could not copy: the browser refused'
            : ''}
      </span>
    </span>
  )
}

function roleLabel(role: string): string {
  return (ROLE_LABELS as Record<string, string>)[role as Role] ?? role
}

/**
 * Who created a consent or voice and when, from the studio's audit trail; without an entry there, only when the
 * service says it was created.
 */
export function Provenance({
  event,
  verb,
  createdAt,
}: {
  event: AuditEvent | undefined
  verb: string
  createdAt: number | null
}) {
  if (!event) {
    return (
      <>
        {createdAt !== null && (
          <>
            {verb} on <When at={createdAt} />.{' '}
          </>
        )}
        <span className="muted">Not in the studio’s audit trail (made outside the studio).</span>
      </>
    )
  }
  if (event.via === 'link')
    return (
      <>
        {verb} remotely by the owner through a consent link from <strong>{event.user}</strong> (
        {roleLabel(event.role)}) on <When at={event.at} />
      </>
    )
  return (
    <>
      {verb} by <strong>{event.user}</strong> ({roleLabel(event.role)}) on <When at={event.at} />
    </>
  )
}

export function When({ at }: { at: number }) {
  return <time dateTime={new Date(at * 1000).toISOString()}>{formatWhen(at)}</time>
}

/** A failure and what to do next, as an alert. */
export function FailureMessage({ failure, id }: { failure: Failure; id?: string }) {
  return (
    <div role="alert" className="failure" id={id}>
      <p>
        <strong>{failure.what}</strong>
      </p>
      <p>{failure.next}</p>
    </div>
  )
}

/**
 * A modal confirmation on the native <dialog>: focus is held inside, Escape cancels, focus returns to the button
 * that opened it. The safe choice (Cancel) has the first focus and stays available; cancelling while the action
 * runs only closes the dialog.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busyLabel,
  busy,
  canConfirm = true,
  failure,
  onConfirm,
  onCancel,
  fallbackFocus,
}: {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  busyLabel: string
  busy: boolean
  /** False while the dialog still gathers what it must say (Cancel stays available). */
  canConfirm?: boolean
  failure: Failure | null
  onConfirm: () => void
  onCancel: () => void
  /** Where focus goes on closing when the opening button is gone (the item was deleted). */
  fallbackFocus?: RefObject<HTMLElement | null>
}) {
  const ref = useRef<HTMLDialogElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) {
      const opener = document.activeElement as HTMLElement | null
      dialog.showModal()
      cancelRef.current?.focus()
      return () => {
        if (dialog.open) dialog.close()
        if (opener?.isConnected) opener.focus()
        else fallbackFocus?.current?.focus()
      }
    }
  }, [open, fallbackFocus])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      className="confirm-dialog"
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      {failure && <FailureMessage failure={failure} />}
      <div className="buttons">
        <button ref={cancelRef} type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="primary danger" onClick={onConfirm} disabled={busy || !canConfirm}>
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
