import type { FastifyBaseLogger } from 'fastify'
import type { AuditKind, ErasureReason } from '../../../schema/index.ts'
import type { AuditStore } from '../audit/store.ts'
import { callUpstream, type Upstream } from '../proxy/upstream.ts'
import type { ErasedTakes, ErasureMatch, TakeStore } from './store.ts'

/**
 * Lineage of takes made with saved voices, and erasure of their audio when the voice goes. The studio learns it
 * three ways: a deletion through its own proxy (at once), the first time it touches the voice (a take's audio
 * asked for, a take stored, speech with it answered 404), and a periodic check of which voices the service still lists (a voice or consent
 * deleted at the service directly with the same key). Every erasure is recorded in the audit trail, per owner.
 */

/** How often the studio asks the service which saved voices still exist. */
export const DEFAULT_VOICE_CHECK_INTERVAL_MS = 60_000
/** A catalog answer reused this long, so a page fetching its takes' audio one by one asks the service once. */
const CATALOG_REUSE_MS = 2_000
const CATALOG_PATH = '/v1/voices?model=svc-tts-2-latest'

/** The saved voices the service lists now, each with its consent (null: bound to none). */
type SavedVoices = Map<string, string | null>

export interface LineageOptions {
  takes: TakeStore
  audit: AuditStore
  upstream: Upstream
  log: FastifyBaseLogger
  /** 0 turns the periodic check off. */
  checkIntervalMs?: number
}

export class VoiceLineage {
  private catalog: { at: number; voices: Promise<SavedVoices | undefined> } | undefined
  private timer: NodeJS.Timeout | undefined
  private sweeping: Promise<void> | undefined

  constructor(private readonly opts: LineageOptions) {}

  /**
   * The service's saved voices, or undefined when it did not answer plainly. Only a successful, well-formed list
   * may erase anything: a service that is down or refuses the key must never look like every voice revoked.
   */
  savedVoices(fresh = false): Promise<SavedVoices | undefined> {
    const now = Date.now()
    if (!fresh && this.catalog && now - this.catalog.at < CATALOG_REUSE_MS) return this.catalog.voices
    const voices = (async () => {
      const res = await callUpstream(this.opts.upstream, CATALOG_PATH, { timeoutMs: 5000 }).catch(() => null)
      if (!res?.ok) return undefined
      const body = (await res.json().catch(() => null)) as {
        data?: Array<{ id?: unknown; type?: unknown; consent?: unknown }>
      } | null
      if (!Array.isArray(body?.data)) return undefined
      const saved: SavedVoices = new Map()
      for (const v of body.data)
        if (v.type === 'saved' && typeof v.id === 'string')
          saved.set(v.id, typeof v.consent === 'string' ? v.consent : null)
      return saved
    })()
    this.catalog = { at: now, voices }
    return voices
  }

  /** The consents the service still holds, or undefined when it did not answer plainly. */
  private async consents(): Promise<Set<string> | undefined> {
    const ids = new Set<string>()
    let after: string | undefined
    for (let page = 0; page < 100; page++) {
      const query = `limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`
      const res = await callUpstream(this.opts.upstream, `/v1/audio/voice_consents?${query}`, {
        timeoutMs: 5000,
      }).catch(() => null)
      if (!res?.ok) return undefined
      const body = (await res.json().catch(() => null)) as {
        data?: Array<{ id?: unknown }>
        has_more?: unknown
      } | null
      if (!Array.isArray(body?.data)) return undefined
      for (const c of body.data) if (typeof c.id === 'string') ids.add(c.id)
      const last = body.data.at(-1)?.id
      if (body.has_more !== true || typeof last !== 'string') return ids
      after = last
    }
    return ids
  }

  /** Which consent a saved voice is bound to, by the catalog (null: none; undefined: the service could not tell). */
  async consentOf(voiceId: string): Promise<string | null | undefined> {
    const voices = await this.confirmed(voiceId)
    return voices?.has(voiceId) ? (voices.get(voiceId) ?? null) : undefined
  }

  /** The lineage of a new take made with `voiceId`: its consent where known, and whether the voice is gone. */
  async lineageOf(voiceId: string): Promise<{ consentId: string | null; gone: boolean }> {
    const voices = await this.confirmed(voiceId)
    const created = await this.opts.audit.creationOf(voiceId)
    const consentId = voices?.get(voiceId) ?? created?.consentId ?? null
    return { consentId, gone: voices !== undefined && !voices.has(voiceId) }
  }

  /**
   * The saved voices, asked afresh when a reused answer lacks `voiceId`: an answer from before the voice was made
   * must never count as its revocation.
   */
  private async confirmed(voiceId: string, fresh = false): Promise<SavedVoices | undefined> {
    const voices = await this.savedVoices(fresh)
    if (fresh || !voices || voices.has(voiceId)) return voices
    return this.savedVoices(true)
  }

  /** Erases the matching takes' audio and records the counts, per owner, in the audit trail. */
  async erase(match: ErasureMatch, reason: ErasureReason, by: string | null): Promise<ErasedTakes[]> {
    const erased = await this.opts.takes.erase(match, reason)
    for (const group of erased) await this.opts.audit.recordErasure({ ...group, reason, by })
    if (erased.length > 0)
      this.opts.log.info(
        { takes: erased.reduce((n, g) => n + g.takes, 0), owners: erased.length, reason },
        'take audio erased',
      )
    return erased
  }

  /**
   * A consent or voice deleted through the studio's proxy (the service said yes). `revokedVoices`: the voices the
   * trail knows were bound to the consent. Then a check of the service's list, for voices bound to it elsewhere.
   */
  async afterDeletion(kind: AuditKind, id: string, revokedVoices: readonly string[], by: string) {
    if (kind === 'voice') await this.erase({ voiceIds: [id] }, 'voice_deleted', by)
    else await this.erase({ consentId: id, voiceIds: revokedVoices }, 'consent_revoked', by)
    await this.sweep(true)
  }

  /**
   * Is `voiceId` still at the service? When the service plainly says no, its takes are erased here and now. When it
   * cannot tell, the answer is yes: the periodic check erases them once it can.
   */
  async stillThere(voiceId: string, fresh = false): Promise<boolean> {
    const voices = await this.confirmed(voiceId, fresh)
    if (!voices || voices.has(voiceId)) return true
    await this.eraseGone([voiceId])
    return false
  }

  /** Erases the takes of every voice in use that the service no longer lists. */
  sweep(fresh = false): Promise<void> {
    // One check at a time per instance; a deletion's check joins the one under way.
    this.sweeping ??= (async () => {
      try {
        const inUse = await this.opts.takes.voicesInUse()
        if (inUse.length === 0) return
        const voices = await this.savedVoices(fresh)
        if (!voices) return
        const gone = inUse.filter((v) => !voices.has(v))
        if (gone.length > 0) await this.eraseGone(gone)
      } finally {
        this.sweeping = undefined
      }
    })()
    return this.sweeping
  }

  /** Voices found missing: a consent that is gone too says the consent was revoked; otherwise the voice went. */
  private async eraseGone(gone: string[]) {
    const consents = await this.consents()
    const known = await this.opts.takes.consentsOf(gone)
    const revoked = gone.filter((v) => {
      const consent = known.get(v)
      return consents !== undefined && consent !== undefined && consent !== null && !consents.has(consent)
    })
    const other = gone.filter((v) => !revoked.includes(v))
    if (revoked.length > 0) await this.erase({ voiceIds: revoked }, 'consent_revoked', null)
    if (other.length > 0) await this.erase({ voiceIds: other }, 'voice_gone', null)
  }

  start() {
    const interval = this.opts.checkIntervalMs ?? DEFAULT_VOICE_CHECK_INTERVAL_MS
    if (interval <= 0) return
    this.timer = setInterval(() => {
      this.sweep(true).catch((err) =>
        this.opts.log.warn({ err: (err as Error).message }, 'voice check failed'),
      )
    }, interval)
    this.timer.unref()
  }

  async stop() {
    clearInterval(this.timer)
    await this.sweeping?.catch(() => {})
  }
}
