import { randomBytes } from 'node:crypto'
import { type ExpressionBuilder, sql } from 'kysely'
import { integratedLoudness } from '../../../core/loudness.ts'
import {
  type ErasureReason,
  MAX_TAKE_BYTES_PER_USER,
  MAX_TAKES_PER_USER,
  type NewTake,
  newTakeSchema,
  SAMPLE_RATE,
  type StoredTake,
  type TakeCreated,
  type TakeSettings,
  type TakeUpdate,
} from '../../../schema/index.ts'
import { forgetDeleted } from '../../storage/forget.ts'
import { isUniqueViolation } from '../../storage/index.ts'
import { open, type Sealer, seal, sealerOf } from '../../storage/sealing.ts'
import type { StudioStorage, StudioTables } from '../database.ts'

/**
 * Voice designers' take history (studio.db or PostgreSQL): each take of a line of one of the owner's scripts, with
 * its audio (24 kHz mono PCM16) in `take_audio`, so any backend instance serves it. Everything is scoped by owner:
 * another user's take is simply not found. Deleting a script deletes its takes (foreign key, cascade).
 *
 * Caps per owner, across their scripts: beyond `maxTakes` or `maxBytes` the oldest unstarred takes are dropped as a
 * new one is stored, in the same transaction; when the starred takes alone leave no room, the new one is refused.
 *
 * Lineage: a take made with a saved voice keeps that voice's id (and its consent's, where known); erasing them
 * deletes the takes' audio and marks the rows, which stay as the record (lineage.ts decides when).
 *
 * Each take's audio is sealed with its own data key (storage/sealing.ts), kept wrapped by the studio's master key in
 * `take_keys`; erasing the audio or deleting the take deletes the key, and its traces are then cleared
 * (storage/forget.ts), so whatever copies of the ciphertext remain can no longer be opened (docs/security.md, "Erasure").
 */

type Row = Omit<StudioTables['takes'], 'owner' | 'bytes' | 'voice_id' | 'consent_id'>

/** The master key file of a data directory without STUDIO_MASTER_KEY. */
export const STUDIO_MASTER_KEY_FILE = 'studio-master.key'

/** The master keys given (base64: `STUDIO_MASTER_KEY`, `STUDIO_MASTER_KEY_PREVIOUS`), or the data directory's file. */
export function studioSealerOf(opts: {
  dataDir: string
  masterKey?: string | undefined
  previousMasterKeys?: readonly string[] | undefined
}): Sealer {
  return sealerOf({ ...opts, keyFile: STUDIO_MASTER_KEY_FILE })
}

/** The settings row naming (by id) the master key that wraps the take keys. */
const MASTER_SETTING = 'take_master_key_id'

/** What sealed audio is and whose, authenticated with it: sealed bytes moved to another take do not open. */
const audioContext = (takeId: string) => `takes/${takeId}/audio`

export const newTakeId = () => `tk_${randomBytes(16).toString('hex')}`

export interface TakeCaps {
  maxTakes: number
  maxBytes: number
}

export const DEFAULT_TAKE_CAPS: TakeCaps = { maxTakes: MAX_TAKES_PER_USER, maxBytes: MAX_TAKE_BYTES_PER_USER }

/** Thrown inside the transaction to undo the insert when starred takes leave no room. */
class NoRoom extends Error {}

const META = [
  'id',
  'script_id',
  'line_id',
  'text',
  'settings',
  'reference',
  'status',
  'final',
  'starred',
  'name',
  'time_to_first_audio_ms',
  'samples',
  'created_at',
  'erased_at',
  'erased_reason',
  'loudness_lufs',
] as const

/** The saved voice (`voice_…`) a take's settings name, or null (a built-in voice, or a reference clip). */
export function savedVoiceOf(settings: TakeSettings): string | null {
  const voice = settings.voice
  const id = typeof voice === 'object' && voice !== null ? voice.id : voice
  return typeof id === 'string' && id.startsWith('voice_') ? id : null
}

export interface TakeLineage {
  voiceId: string | null
  consentId: string | null
}

/** Which takes an erasure concerns: those made with any of these voices, or with a voice of this consent. */
export interface ErasureMatch {
  voiceIds?: readonly string[]
  consentId?: string
}

/** What one erasure removed: how many takes of one owner, made with one voice. */
export interface ErasedTakes {
  owner: string
  voiceId: string
  consentId: string | null
  takes: number
}

/** A take's audio as the route serves it: the samples, or the fact and time of their erasure. */
export type TakeAudio =
  | { pcm: Uint8Array; voiceId: string | null }
  | { erased: { at: number; reason: ErasureReason } }

export class TakeStore {
  private constructor(
    private readonly storage: StudioStorage,
    private readonly sealer: Sealer,
    private readonly caps: TakeCaps,
  ) {}

  /**
   * The store on `storage`, sealing with `sealer`. A database whose take keys were wrapped by a master key the
   * sealer does not hold is refused; keys wrapped by a previous one it holds are wrapped again by the current one
   * (rotation); then audio stored before sealing is sealed.
   */
  static async open(storage: StudioStorage, sealer: Sealer, caps = DEFAULT_TAKE_CAPS): Promise<TakeStore> {
    // Deleted pages overwritten, so an erased take's key does not linger in studio.db's free pages.
    if (storage.dialect === 'sqlite') await sql`PRAGMA secure_delete = ON`.execute(storage.db)
    const store = new TakeStore(storage, sealer, caps)
    await store.checkMaster()
    await store.rewrapKeys()
    await store.sealUnsealed()
    return store
  }

  private get db() {
    return this.storage.db
  }

  /**
   * The first studio records its master key's id; one holding neither it nor it as a previous key stops here, before
   * it could seal audio the other instances cannot open.
   */
  private async checkMaster(): Promise<void> {
    await this.db
      .insertInto('settings')
      .values({ name: MASTER_SETTING, value: this.sealer.current.id })
      .onConflict((c) => c.column('name').doNothing())
      .execute()
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', MASTER_SETTING)
      .executeTakeFirstOrThrow()
    this.sealer.assertHolds(row.value, 'take audio', 'STUDIO_MASTER_KEY')
  }

  /** Every take key not wrapped by the current master key wrapped again by it; how many were. */
  private async rewrapKeys(): Promise<number> {
    const current = this.sealer.current.id
    let rewrapped = 0
    for (const row of await this.db.selectFrom('take_keys').select(['take_id', 'wrapped']).execute()) {
      const wrapped = this.sealer.rewrapped(row.wrapped)
      if (!wrapped) continue
      await this.db.updateTable('take_keys').set({ wrapped }).where('take_id', '=', row.take_id).execute()
      rewrapped++
    }
    await this.db.updateTable('settings').set({ value: current }).where('name', '=', MASTER_SETTING).execute()
    if (rewrapped > 0) await this.forget()
    return rewrapped
  }

  /** Audio stored before sealing (no data key) sealed in place, each in one transaction; then its traces cleared. */
  private async sealUnsealed(): Promise<void> {
    const unsealed = await this.db
      .selectFrom('take_audio')
      .leftJoin('take_keys', 'take_keys.take_id', 'take_audio.take_id')
      .select('take_audio.take_id as id')
      .where('take_keys.take_id', 'is', null)
      .execute()
    let sealed = 0
    for (const { id } of unsealed) {
      const done = await this.db.transaction().execute(async (trx) => {
        const { key, wrapped } = this.sealer.newDataKey()
        // The key first: another instance sealing the same take at once waits on it, then finds it taken.
        const claimed = await trx
          .insertInto('take_keys')
          .values({ take_id: id, wrapped })
          .onConflict((c) => c.column('take_id').doNothing())
          .returning('take_id')
          .executeTakeFirst()
        if (!claimed) return false
        const row = await trx
          .selectFrom('take_audio')
          .select('pcm')
          .where('take_id', '=', id)
          .executeTakeFirst()
        if (!row) return false
        await trx
          .updateTable('take_audio')
          .set({ pcm: seal(key, row.pcm, audioContext(id)) })
          .where('take_id', '=', id)
          .execute()
        return true
      })
      if (done) sealed++
    }
    if (sealed > 0) await this.forget()
  }

  /** Clears what deleting take keys leaves of them (storage/forget.ts). */
  private forget(): Promise<void> {
    return forgetDeleted(this.storage, ['take_keys'])
  }

  private async ownsScript(owner: string, scriptId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('scripts')
      .select('id')
      .where('id', '=', scriptId)
      .where('owner', '=', owner)
      .executeTakeFirst()
    return row !== undefined
  }

  /** The script's takes, oldest first; undefined when the owner has no such script. */
  async list(owner: string, scriptId: string): Promise<StoredTake[] | undefined> {
    if (!(await this.ownsScript(owner, scriptId))) return undefined
    const rows = await this.db
      .selectFrom('takes')
      .select(META)
      .where('owner', '=', owner)
      .where('script_id', '=', scriptId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    return rows.map(toStored)
  }

  async get(owner: string, id: string): Promise<StoredTake | undefined> {
    const row = await this.db
      .selectFrom('takes')
      .select(META)
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst()
    return row && toStored(row)
  }

  /** The take's PCM16 samples (little-endian bytes) or its erasure; undefined when the owner has no such take. */
  async audio(owner: string, id: string): Promise<TakeAudio | undefined> {
    const row = await this.db
      .selectFrom('takes')
      .leftJoin('take_audio', 'take_audio.take_id', 'takes.id')
      .leftJoin('take_keys', 'take_keys.take_id', 'takes.id')
      .select([
        'take_audio.pcm',
        'take_keys.wrapped',
        'takes.voice_id',
        'takes.erased_at',
        'takes.erased_reason',
      ])
      .where('takes.id', '=', id)
      .where('takes.owner', '=', owner)
      .executeTakeFirst()
    if (!row) return undefined
    if (row.erased_at !== null || !row.pcm || !row.wrapped)
      return { erased: { at: Number(row.erased_at ?? 0), reason: row.erased_reason ?? 'voice_gone' } }
    return { pcm: open(this.sealer.unwrap(row.wrapped), row.pcm, audioContext(id)), voiceId: row.voice_id }
  }

  /** Kept takes (audio not erased) made with a matching voice: how many, and of how many owners. */
  async erasable(match: ErasureMatch): Promise<{ takes: number; users: number }> {
    const where = matching(match)
    if (!where) return { takes: 0, users: 0 }
    const row = await this.db
      .selectFrom('takes')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.count<number | string>('owner').distinct().as('u'),
      ])
      .where('erased_at', 'is', null)
      .where(where)
      .executeTakeFirstOrThrow()
    return { takes: Number(row.n), users: Number(row.u) }
  }

  /** The consent each of these voices' kept takes names (null: not known). */
  async consentsOf(voiceIds: readonly string[]): Promise<Map<string, string | null>> {
    if (voiceIds.length === 0) return new Map()
    const rows = await this.db
      .selectFrom('takes')
      .select(['voice_id', 'consent_id'])
      .distinct()
      .where('voice_id', 'in', [...voiceIds])
      .where('erased_at', 'is', null)
      .execute()
    const out = new Map<string, string | null>()
    for (const r of rows) if (r.voice_id && !out.get(r.voice_id)) out.set(r.voice_id, r.consent_id)
    return out
  }

  /** The saved voices that kept takes were made with. */
  async voicesInUse(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('takes')
      .select('voice_id')
      .distinct()
      .where('voice_id', 'is not', null)
      .where('erased_at', 'is', null)
      .execute()
    return rows.map((r) => r.voice_id as string)
  }

  /**
   * Erases the audio of every kept take made with a matching voice, leaving the rows marked with when and why (and no
   * longer starred or counted against the byte cap). Only rows this call marked are counted, so two instances
   * erasing at once count each take once.
   */
  async erase(match: ErasureMatch, reason: ErasureReason, now = Date.now()): Promise<ErasedTakes[]> {
    const where = matching(match)
    if (!where) return []
    const erased = await this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .updateTable('takes')
        .set({ erased_at: now, erased_reason: reason, starred: 0, bytes: 0 })
        .where('erased_at', 'is', null)
        .where(where)
        .returning(['id', 'owner', 'voice_id', 'consent_id'])
        .execute()
      if (rows.length > 0) {
        const ids = rows.map((r) => r.id)
        await trx.deleteFrom('take_keys').where('take_id', 'in', ids).execute()
        await trx.deleteFrom('take_audio').where('take_id', 'in', ids).execute()
      }
      return rows
    })
    if (erased.length > 0) await this.forget()
    const groups = new Map<string, ErasedTakes>()
    for (const r of erased) {
      const key = JSON.stringify([r.owner, r.voice_id, r.consent_id])
      const group = groups.get(key)
      if (group) group.takes += 1
      else
        groups.set(key, {
          owner: r.owner,
          voiceId: r.voice_id as string,
          consentId: r.consent_id,
          takes: 1,
        })
    }
    return [...groups.values()]
  }

  /**
   * Stores a take of `scriptId` with its PCM16 audio and drops the owner's oldest unstarred takes beyond the caps.
   * `undefined`: the owner has no such script; `'full'`: starred takes alone leave no room for it.
   */
  async create(
    owner: string,
    scriptId: string,
    take: NewTake,
    pcm: Uint8Array,
    now = Date.now(),
    lineage: TakeLineage = { voiceId: null, consentId: null },
  ): Promise<TakeCreated | 'full' | undefined> {
    const t = newTakeSchema.parse(take)
    if (pcm.byteLength % 2 !== 0) throw new Error('PCM16 audio has an even number of bytes')
    try {
      const created = await this.db.transaction().execute(async (trx) => {
        const script = await trx
          .selectFrom('scripts')
          .select('id')
          .where('id', '=', scriptId)
          .where('owner', '=', owner)
          .executeTakeFirst()
        if (!script) return undefined
        const id = newTakeId()
        const row = await trx
          .insertInto('takes')
          .values({
            id,
            owner,
            script_id: scriptId,
            line_id: t.line_id,
            text: t.text,
            settings: JSON.stringify(t.settings),
            reference: t.reference ? 1 : 0,
            status: t.status,
            final: t.final ? 1 : 0,
            starred: 0,
            name: null,
            time_to_first_audio_ms: t.time_to_first_audio_ms,
            samples: pcm.byteLength / 2,
            bytes: pcm.byteLength,
            created_at: now,
            voice_id: lineage.voiceId ?? savedVoiceOf(t.settings),
            consent_id: lineage.consentId,
            erased_at: null,
            erased_reason: null,
            loudness_lufs: loudnessOfBytes(pcm),
          })
          .returning(META)
          .executeTakeFirstOrThrow()
        const { key, wrapped } = this.sealer.newDataKey()
        await trx
          .insertInto('take_audio')
          .values({ take_id: id, pcm: seal(key, pcm, audioContext(id)) })
          .execute()
        await trx.insertInto('take_keys').values({ take_id: id, wrapped }).execute()

        const totals = await trx
          .selectFrom('takes')
          .select((eb) => [
            eb.fn.countAll<number | string>().as('n'),
            eb.fn.sum<number | string>('bytes').as('b'),
          ])
          .where('owner', '=', owner)
          .executeTakeFirstOrThrow()
        let count = Number(totals.n)
        let bytes = Number(totals.b ?? 0)
        const dropped: TakeCreated['dropped'] = []
        if (count > this.caps.maxTakes || bytes > this.caps.maxBytes) {
          const candidates = await trx
            .selectFrom('takes')
            .select(['id', 'script_id', 'line_id', 'bytes'])
            .where('owner', '=', owner)
            .where('starred', '=', 0)
            .where('id', '!=', id)
            .orderBy('created_at')
            .orderBy('id')
            .execute()
          for (const c of candidates) {
            if (count <= this.caps.maxTakes && bytes <= this.caps.maxBytes) break
            dropped.push({ id: c.id, script_id: c.script_id, line_id: c.line_id })
            count -= 1
            bytes -= Number(c.bytes)
          }
          if (count > this.caps.maxTakes || bytes > this.caps.maxBytes) throw new NoRoom()
          if (dropped.length > 0)
            await trx
              .deleteFrom('takes')
              .where(
                'id',
                'in',
                dropped.map((d) => d.id),
              )
              .execute()
        }
        return { take: toStored(row), dropped }
      })
      // Dropped takes' keys went by cascade.
      if (created && created.dropped.length > 0) await this.forget()
      return created
    } catch (err) {
      if (err instanceof NoRoom) return 'full'
      throw err
    }
  }

  /**
   * Renames and/or stars the take. Starring un-stars the line's other take in the same transaction; only a complete
   * take can be starred (`'incomplete'`), and not one whose audio was erased (`'erased'`). Undefined when the owner
   * has no such take.
   */
  async update(
    owner: string,
    id: string,
    change: TakeUpdate,
  ): Promise<StoredTake | 'incomplete' | 'erased' | undefined> {
    const attempt = () =>
      this.db.transaction().execute(async (trx) => {
        const take = await trx
          .selectFrom('takes')
          .select(['script_id', 'line_id', 'status', 'erased_at'])
          .where('id', '=', id)
          .where('owner', '=', owner)
          .executeTakeFirst()
        if (!take) return undefined
        if (change.starred === true && take.status !== 'complete') return 'incomplete' as const
        if (change.starred === true && take.erased_at !== null) return 'erased' as const
        if (change.starred === true)
          await trx
            .updateTable('takes')
            .set({ starred: 0 })
            .where('script_id', '=', take.script_id)
            .where('line_id', '=', take.line_id)
            .where('starred', '=', 1)
            .where('id', '!=', id)
            .execute()
        const row = await trx
          .updateTable('takes')
          .set({
            ...(change.name !== undefined ? { name: change.name } : {}),
            ...(change.starred !== undefined ? { starred: change.starred ? 1 : 0 } : {}),
          })
          .where('id', '=', id)
          .where('owner', '=', owner)
          .returning(META)
          .executeTakeFirstOrThrow()
        return toStored(row)
      })
    try {
      return await attempt()
    } catch (err) {
      // Another instance starred a take of the same line at the same moment: this star comes after it.
      if (isUniqueViolation(err)) return attempt()
      throw err
    }
  }

  /** False when the owner has no such take. Its audio and data key go with it (cascade), the key's traces after. */
  async delete(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('takes')
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.forget()
    return deleted
  }
}

/** The condition for an erasure's takes; undefined when it matches nothing. */
function matching(match: ErasureMatch) {
  const voiceIds = [...(match.voiceIds ?? [])]
  const consentId = match.consentId
  if (voiceIds.length === 0 && consentId === undefined) return undefined
  return (eb: ExpressionBuilder<StudioTables, 'takes'>) =>
    eb.or([
      ...(voiceIds.length > 0 ? [eb('voice_id', 'in', voiceIds)] : []),
      ...(consentId !== undefined ? [eb('consent_id', '=', consentId)] : []),
    ])
}

/** BS.1770 loudness of little-endian PCM16 bytes; null when not measurable (silent, or under one 400 ms block). */
export function loudnessOfBytes(pcm: Uint8Array): number | null {
  const samples = new Int16Array(pcm.byteLength >> 1)
  const view = new DataView(pcm.buffer, pcm.byteOffset, pcm.byteLength)
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true)
  const lufs = integratedLoudness(samples, SAMPLE_RATE)
  // Two decimals are far finer than anyone hears (about 0.1 LU is the smallest step one can).
  return Number.isFinite(lufs) ? Math.round(lufs * 100) / 100 : null
}

function toStored(row: Row): StoredTake {
  return {
    id: row.id,
    script_id: row.script_id,
    line_id: row.line_id,
    text: row.text,
    settings: JSON.parse(row.settings) as TakeSettings,
    reference: row.reference === 1,
    status: row.status,
    final: row.final === 1,
    starred: row.starred === 1,
    name: row.name,
    // PostgreSQL's bigint arrives as a string.
    time_to_first_audio_ms: row.time_to_first_audio_ms === null ? null : Number(row.time_to_first_audio_ms),
    samples: Number(row.samples),
    created_at: Number(row.created_at),
    loudness_lufs: row.loudness_lufs === null ? null : Number(row.loudness_lufs),
    erased:
      row.erased_at === null
        ? null
        : { at: Number(row.erased_at), reason: row.erased_reason ?? 'voice_gone' },
  }
}
