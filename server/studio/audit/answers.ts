import type { AuditEvent as AuditEventAnswer, ConsentRecord, TakeErasure } from '../../../schema/index.ts'
import type { AuditEvent, ConsentLinkRow } from './store.ts'

/** The trail's answers as the voices page parses them (schema/audit.ts): an event, and one consent's record. */

/** An event on the wire. */
export function toJson(e: AuditEvent): AuditEventAnswer {
  return {
    id: e.id,
    at: e.at,
    user: e.user,
    role: e.role,
    kind: e.kind,
    action: e.action,
    upstream_id: e.upstreamId,
    name: e.name,
    consent_id: e.consentId,
    via: e.via ?? null,
  }
}

const seconds = (ms: number) => Math.floor(ms / 1000)

/**
 * One consent's record from its trail (AuditStore.consentTrail): the latest creation and deletion of the consent,
 * each voice bound to it with what ended it, the erasures, and every event behind them. Pure, so the record's rules
 * are tested without a database.
 */
export function consentRecord(
  consentId: string,
  trail: {
    events: readonly AuditEvent[]
    erasures: readonly TakeErasure[]
    link: ConsentLinkRow | undefined
  },
  now = Date.now(),
): ConsentRecord {
  const own = trail.events.filter((e) => e.kind === 'consent' && e.upstreamId === consentId)
  const created = own.findLast((e) => e.action === 'created')
  const deleted = own.findLast((e) => e.action === 'deleted')
  const { link } = trail
  const voiceIds = [...new Set(trail.events.filter((e) => e.kind === 'voice').map((e) => e.upstreamId))]
  return {
    object: 'consent_record',
    consent_id: consentId,
    generated_at: seconds(now),
    name: created?.name ?? deleted?.name ?? null,
    recorded: created
      ? {
          at: created.at,
          by: created.user,
          role: created.role,
          how: link ? 'link' : 'in_person',
          link: link
            ? {
                requested_by: link.createdBy,
                requested_at: seconds(link.createdAt),
                owner_name: link.ownerName,
                language: link.language,
                used_at: link.usedAt === null ? null : seconds(link.usedAt),
              }
            : null,
        }
      : null,
    revoked: deleted ? { at: deleted.at, by: deleted.user, role: deleted.role } : null,
    voices: voiceIds.map((voiceId) => {
      const events = trail.events.filter((e) => e.kind === 'voice' && e.upstreamId === voiceId)
      const made = events.findLast((e) => e.action === 'created')
      const end = events.findLast((e) => e.action === 'deleted' || e.action === 'revoked')
      return {
        voice_id: voiceId,
        name: made?.name ?? end?.name ?? null,
        created_at: made?.at ?? null,
        created_by: made?.user ?? null,
        ended: end
          ? { at: end.at, by: end.user, action: end.action === 'revoked' ? 'revoked' : 'deleted' }
          : null,
      }
    }),
    erased: [...trail.erasures],
    events: trail.events.map(toJson),
  }
}
