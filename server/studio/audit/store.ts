import type { Selectable } from 'kysely'
import type { AuditAction, AuditKind, AuditVia, ErasureReason, TakeErasure } from '../../../schema/index.ts'
import type { StudioStorage, StudioTables } from '../database.ts'

/** The studio's audit trail of consents and voices: who created or deleted which, and when (studio.db or PostgreSQL). */

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
  /**
   * `link`: a consent its owner recorded remotely through a link `user` created (told by the used consent request
   * that names it); absent or null otherwise.
   */
  via?: AuditVia | null
}

/** Takes of one owner, made with one voice, whose audio one erasure removed. */
export interface NewErasure {
  owner: string
  takes: number
  voiceId: string
  consentId: string | null
  reason: ErasureReason
  /** The studio user who deleted or revoked; null when the studio found the voice gone at the service. */
  by: string | null
}

/** The consent link a consent's owner answered (consent-requests/store.ts), as the consent's record gives it. */
export interface ConsentLinkRow {
  ownerName: string
  language: string
  createdBy: string
  /** Milliseconds, as the consent requests keep their times. */
  createdAt: number
  usedAt: number | null
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

const toErasure = (r: Selectable<StudioTables['take_erasures']>): TakeErasure => ({
  id: Number(r.id),
  at: Number(r.at),
  owner: r.owner,
  takes: Number(r.takes),
  voice_id: r.voice_id,
  consent_id: r.consent_id,
  reason: r.reason,
  by: r.by_user,
})

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
  via: null,
})

export class AuditStore {
  constructor(private readonly storage: StudioStorage) {}

  private get db() {
    return this.storage.db
  }

  /** Creation events with no later deletion or revocation of the same id. */
  private liveCreations() {
    return this.db
      .selectFrom('audit_events as c')
      .selectAll('c')
      .where('c.action', '=', 'created')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('audit_events as d')
              .select('d.id')
              .whereRef('d.upstream_id', '=', 'c.upstream_id')
              .where('d.action', '<>', 'created')
              .whereRef('d.id', '>', 'c.id'),
          ),
        ),
      )
  }

  async record(event: NewAuditEvent): Promise<AuditEvent> {
    const at = event.at ?? Math.floor(Date.now() / 1000)
    const { id } = await this.db
      .insertInto('audit_events')
      .values({
        at,
        user_name: event.user,
        user_role: event.role,
        kind: event.kind,
        action: event.action,
        upstream_id: event.upstreamId,
        name: event.name,
        consent_id: event.consentId,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { ...event, via: event.via ?? null, id, at }
  }

  /** Newest first; `before` is the id of the last event of the previous page. */
  async list(opts: { limit: number; before?: number; kind?: AuditKind }): Promise<{
    events: AuditEvent[]
    hasMore: boolean
  }> {
    let query = this.db.selectFrom('audit_events').selectAll()
    if (opts.before !== undefined) query = query.where('id', '<', opts.before)
    if (opts.kind !== undefined) query = query.where('kind', '=', opts.kind)
    const rows = await query
      .orderBy('id', 'desc')
      .limit(opts.limit + 1)
      .execute()
    return {
      events: await this.markRemote(rows.slice(0, opts.limit).map(toEvent)),
      hasMore: rows.length > opts.limit,
    }
  }

  /**
   * The creation events of everything not deleted or revoked since: where each live consent and voice came from.
   * Newest first.
   */
  async origins(): Promise<AuditEvent[]> {
    return this.markRemote((await this.liveCreations().orderBy('c.id', 'desc').execute()).map(toEvent))
  }

  /** Consents that came through a consent link (the used request names them) get `via: 'link'`. */
  private async markRemote(events: AuditEvent[]): Promise<AuditEvent[]> {
    const ids = [...new Set(events.filter((e) => e.kind === 'consent').map((e) => e.upstreamId))]
    if (ids.length === 0) return events
    const remote = new Set<string | null>()
    // In slices, so that a long trail stays within the databases' limits on bound parameters.
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('consent_requests')
        .select('consent_id')
        .where('consent_id', 'in', ids.slice(i, i + 500))
        .execute()
      for (const r of rows) remote.add(r.consent_id)
    }
    return events.map((e) => (e.kind === 'consent' && remote.has(e.upstreamId) ? { ...e, via: 'link' } : e))
  }

  /** The latest creation of `upstreamId` through the studio, if it was created here. */
  async creationOf(upstreamId: string): Promise<AuditEvent | undefined> {
    const row = await this.db
      .selectFrom('audit_events')
      .selectAll()
      .where('upstream_id', '=', upstreamId)
      .where('action', '=', 'created')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
    return row && toEvent(row)
  }

  /** Voices created bound to `consentId` that are still live (so a deletion of the consent revokes them). */
  async liveVoicesOf(consentId: string): Promise<AuditEvent[]> {
    const rows = await this.liveCreations()
      .where('c.kind', '=', 'voice')
      .where('c.consent_id', '=', consentId)
      .orderBy('c.id')
      .execute()
    return rows.map(toEvent)
  }

  /**
   * What the trail holds of one consent: its events and its voices' (oldest first), what their revocation erased, and
   * the consent link its owner answered, if any.
   */
  async consentTrail(consentId: string): Promise<{
    events: AuditEvent[]
    erasures: TakeErasure[]
    link: ConsentLinkRow | undefined
  }> {
    const rows = await this.db
      .selectFrom('audit_events')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('upstream_id', '=', consentId),
          eb.and([eb('kind', '=', 'voice'), eb('consent_id', '=', consentId)]),
        ]),
      )
      .orderBy('id')
      .execute()
    const voiceIds = [...new Set(rows.filter((r) => r.kind === 'voice').map((r) => r.upstream_id))]
    const erasures = await this.db
      .selectFrom('take_erasures')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('consent_id', '=', consentId),
          ...(voiceIds.length > 0 ? [eb('voice_id', 'in', voiceIds)] : []),
        ]),
      )
      .orderBy('id')
      .execute()
    const link = await this.db
      .selectFrom('consent_requests')
      .select(['owner_name', 'language', 'created_by', 'created_at', 'used_at'])
      .where('consent_id', '=', consentId)
      .executeTakeFirst()
    return {
      events: await this.markRemote(rows.map(toEvent)),
      erasures: erasures.map(toErasure),
      link: link && {
        ownerName: link.owner_name,
        language: link.language,
        createdBy: link.created_by,
        createdAt: Number(link.created_at),
        usedAt: link.used_at === null ? null : Number(link.used_at),
      },
    }
  }

  async recordErasure(e: NewErasure): Promise<void> {
    await this.db
      .insertInto('take_erasures')
      .values({
        at: Math.floor(Date.now() / 1000),
        owner: e.owner,
        takes: e.takes,
        voice_id: e.voiceId,
        consent_id: e.consentId,
        reason: e.reason,
        by_user: e.by,
      })
      .execute()
  }

  /** What revocations erased, newest first. */
  async erasures(limit = 200): Promise<TakeErasure[]> {
    const rows = await this.db
      .selectFrom('take_erasures')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
    return rows.map(toErasure)
  }
}
