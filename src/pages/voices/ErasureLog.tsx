import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { auditErasuresQuery, type TakeErasure } from '../../api/audit.ts'
import { describeFailure } from './failures.ts'
import { FailureMessage, IdBadge, When } from './parts.tsx'

/** The audit trail's erasures: whose takes lost their audio when a voice or its consent was revoked, and how many. */

const WHY: Record<TakeErasure['reason'], string> = {
  consent_revoked: 'Consent revoked',
  voice_deleted: 'Voice deleted',
  voice_gone: 'Voice gone from the speech service',
}

export function ErasureTable({ erasures }: { erasures: readonly TakeErasure[] }) {
  if (erasures.length === 0)
    return <p className="muted">No take has been erased: none was made with a revoked voice.</p>
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">Takes erased by revocations, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Voice designer</th>
            <th scope="col">Takes erased</th>
            <th scope="col">Why</th>
            <th scope="col">By</th>
            <th scope="col">Voice id</th>
          </tr>
        </thead>
        <tbody>
          {erasures.map((e) => (
            <tr key={e.id}>
              <td>
                <When at={e.at} />
              </td>
              <td>{e.owner}</td>
              <td>{e.takes}</td>
              <td>{WHY[e.reason]}</td>
              <td>{e.by ?? 'Found by the studio'}</td>
              <td>
                <IdBadge id={e.voice_id} what="voice" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function ErasureLog() {
  const id = useId()
  const erasures = useQuery(auditErasuresQuery)
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Erased takes</h3>
      {erasures.isPending ? (
        <p>Loading…</p>
      ) : erasures.isError ? (
        <FailureMessage failure={describeFailure(erasures.error, 'load')} />
      ) : (
        <ErasureTable erasures={erasures.data} />
      )}
    </section>
  )
}
