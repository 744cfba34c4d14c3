import { useQuery } from '@tanstack/react-query'
import type { ErasableTakes } from '../../../schema/index.ts'
import { type ErasureTarget, erasableTakesQuery } from '../../api/takes.ts'

/**
 * Before a consent is revoked or a voice deleted: how many of the designers' kept takes were made with it, whose
 * audio the studio then erases (each take stays listed as a record). Counted by the backend when the dialog opens.
 */

export type ErasureCountState =
  | { status: 'pending' }
  | { status: 'error' }
  | { status: 'success'; counts: ErasableTakes }

const takes = (n: number) => (n === 1 ? '1 take' : `${n} takes`)
const designers = (n: number) => (n === 1 ? '1 voice designer' : `${n} voice designers`)

/** The sentence itself, for the state of the count. */
export function erasureText(state: ErasureCountState, what: 'consent' | 'voice'): string {
  const made = what === 'consent' ? 'with its voices' : 'with it'
  if (state.status === 'pending') return `Counting the takes made ${made}…`
  if (state.status === 'error')
    return `The studio could not count the takes made ${made}; any it keeps will have their audio erased.`
  const { counts } = state
  if (counts.takes === 0) return `No take kept by the studio was made ${made}.`
  return `${takes(counts.takes)} of ${designers(counts.users)} made ${made} will have ${counts.takes === 1 ? 'its' : 'their'} audio erased: ${counts.takes === 1 ? 'it stays' : 'they stay'} in the take history as a record only, and can no longer be played or downloaded.`
}

export function ErasureCountNote({ state, what }: { state: ErasureCountState; what: 'consent' | 'voice' }) {
  const erases = state.status === 'success' && state.counts.takes > 0
  return (
    <p
      className={erases ? 'erasure-count warning' : 'erasure-count'}
      aria-live="polite"
      data-testid="erasure-count"
    >
      {erasureText(state, what)}
    </p>
  )
}

/** Asks the backend for the count while `target` is set (the confirmation is open). */
export function ErasureCount({ target }: { target: ErasureTarget }) {
  const count = useQuery(erasableTakesQuery(target))
  const state: ErasureCountState = count.isSuccess
    ? { status: 'success', counts: count.data }
    : count.isError
      ? { status: 'error' }
      : { status: 'pending' }
  return <ErasureCountNote state={state} what={'voice' in target ? 'voice' : 'consent'} />
}
