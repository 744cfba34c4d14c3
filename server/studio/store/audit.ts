import type { StudioDb } from './db.ts'

/** The studio's audit trail of consents and voices: who created or deleted which, and when (studio.db). */

export const AUDIT_KINDS = ['consent', 'voice'] as const
export type AuditKind = (typeof AUDIT_KINDS)[number]
/** `revoked`: a voice that went with its consent's deletion. */
export const AUDIT_ACTIONS = ['created', 'deleted', 'revoked'] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditEvent {
  id: number
  /** Unix time in seconds. */
  at: number
  /** The studio user who made the change (a later removal of the user leaves the name here). */
  user: string
  role: string
  kind: AuditKind
  action: AuditAction
  /** The service's id of the consent or voice. */
  upstreamId: string
  name: string | null
  /** For voices: the consent the voice was bound to, when known. */
  consentId: string | null
}

export type NewAuditEvent = Omit<AuditEvent, 'id' | 'at'> & { at?: number }

type Row = {
  id: number
  at: number
  user_name: string
  user_role: string
  kind: AuditKind
  action: AuditAction
  upstream_id: string
  name: string | null
  consent_id: string | null
}

const toEvent = (r: Row): AuditEvent => ({
  id: r.id,
  at: r.at,
  user: r.user_name,
  role: r.user_role,
  kind: r.kind,
  action: r.action,
  upstreamId: r.upstream_id,
  name: r.name,
  consentId: r.consent_id,
})

/** Creation events with no later deletion or revocation of the same id. */
const LIVE_CREATIONS = `SELECT * FROM audit_events AS c
  WHERE c.action = 'created' AND NOT EXISTS (
    SELECT 1 FROM audit_events AS d WHERE d.upstream_id = c.upstream_id AND d.action <> 'created' AND d.id > c.id
  )`

export class AuditStore {
  constructor(private readonly db: StudioDb) {}

  record(event: NewAuditEvent): AuditEvent {
    const at = event.at ?? Math.floor(Date.now() / 1000)
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO audit_events (at, user_name, user_role, kind, action, upstream_id, name, consent_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        at,
        event.user,
        event.role,
        event.kind,
        event.action,
        event.upstreamId,
        event.name,
        event.consentId,
      )
    return { ...event, id: Number(lastInsertRowid), at }
  }

  /** Newest first; `before` is the id of the last event of the previous page. */
  list(opts: { limit: number; before?: number; kind?: AuditKind }): {
    events: AuditEvent[]
    hasMore: boolean
  } {
    const rows = this.db
      .prepare(
        `SELECT * FROM audit_events
         WHERE (@before IS NULL OR id < @before) AND (@kind IS NULL OR kind = @kind)
         ORDER BY id DESC LIMIT @limit`,
      )
      .all({ before: opts.before ?? null, kind: opts.kind ?? null, limit: opts.limit + 1 }) as Row[]
    return { events: rows.slice(0, opts.limit).map(toEvent), hasMore: rows.length > opts.limit }
  }

  /**
   * The creation events of everything not deleted or revoked since: where each live consent and voice came from.
   * Newest first.
   */
  origins(): AuditEvent[] {
    return (this.db.prepare(`${LIVE_CREATIONS} ORDER BY c.id DESC`).all() as Row[]).map(toEvent)
  }

  /** The latest creation of `upstreamId` through the studio, if it was created here. */
  creationOf(upstreamId: string): AuditEvent | undefined {
    const row = this.db
      .prepare(
        `SELECT * FROM audit_events WHERE upstream_id = ? AND action = 'created' ORDER BY id DESC LIMIT 1`,
      )
      .get(upstreamId) as Row | undefined
    return row && toEvent(row)
  }

  /** Voices created bound to `consentId` that are still live (so a deletion of the consent revokes them). */
  liveVoicesOf(consentId: string): AuditEvent[] {
    return (
      this.db
        .prepare(`${LIVE_CREATIONS} AND c.kind = 'voice' AND c.consent_id = ? ORDER BY c.id`)
        .all(consentId) as Row[]
    ).map(toEvent)
  }
}
