import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { sql } from 'kysely'
import type { VoiceParams } from '../../engine/index.ts'
import { forgetDeleted } from '../../storage/forget.ts'
import { open, type Sealer, seal, sealerOf as sealingKeysOf } from '../../storage/sealing.ts'
import type { SpeechDb, SpeechStorage } from '../database.ts'
import { importLegacyVoiceFiles } from './legacy-voice-files.ts'

/**
 * Consents and saved voices (contract 2.3, 2.5, 3), with their audio and embeddings, all in the service's database
 * (database.ts). A consent or voice and its artifacts are written in one transaction and deleted by one cascade, so
 * after any crash every row has its audio and no audio outlives its row; with PostgreSQL every instance sees the same
 * ones. Every query is scoped to the owner, so a foreign id and a nonexistent one take the same path and give the
 * same answer.
 *
 * Audio and embeddings are sealed with a data key of their consent or voice (storage/sealing.ts), kept wrapped in
 * `consent_keys` / `voice_keys` and deleted by the same cascade; after a deletion the key's last traces are cleared
 * (`forget`), so copies of the ciphertext left anywhere can no longer be opened (docs/security.md, "Erasure").
 */

/** The master key file of a data directory without SPEECH_MASTER_KEY. */
export const MASTER_KEY_FILE = 'speech-master.key'

/** The master keys given (base64: `SPEECH_MASTER_KEY`, `SPEECH_MASTER_KEY_PREVIOUS`), or the data directory's file. */
export function sealerOf(opts: {
  dataDir: string
  masterKey?: string | undefined
  previousMasterKeys?: readonly string[] | undefined
}): Sealer {
  return sealingKeysOf({ ...opts, keyFile: MASTER_KEY_FILE })
}

export interface ConsentRecord {
  id: string
  name: string
  language: string
  createdAt: number
}

export interface VoiceRecord {
  id: string
  name: string
  consentId: string | null
  language: string
  createdAt: number
  preparedVersion: string
  params: VoiceParams
}

/** What is kept for a consent or voice: its audio (16 kHz float) and the speaker embedding. */
export interface VoiceArtifacts {
  audio: Float32Array
  embedding: Float32Array | null
  /** The embedder's version, so a changed embedder recomputes instead of comparing incomparable vectors. */
  embedderVersion: string
}

export type ArtifactKind = 'consents' | 'voices'

/** What a sealed artifact is and whose, authenticated with it: sealed bytes moved to another row do not open. */
const context = (kind: ArtifactKind, id: string, part: 'audio' | 'embedding') => `${kind}/${id}/${part}`

const now = () => Math.floor(Date.now() / 1000)
const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`

interface VoiceRow {
  id: string
  name: string
  consent_id: string | null
  language: string
  created_at: number
  prepared_version: string
  prepared: string
}

const toVoice = (r: VoiceRow): VoiceRecord => ({
  id: r.id,
  name: r.name,
  consentId: r.consent_id,
  language: r.language,
  createdAt: r.created_at,
  preparedVersion: r.prepared_version,
  params: JSON.parse(r.prepared) as VoiceParams,
})

const VOICE_COLUMNS = [
  'id',
  'name',
  'consent_id',
  'language',
  'created_at',
  'prepared_version',
  'prepared',
] as const

/** A foreign key refused the row: on PostgreSQL, the consent was deleted by another transaction meanwhile. */
const isForeignKeyViolation = (err: unknown) => {
  const code = (err as { code?: string } | null)?.code
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
}

export class VoiceStore {
  private constructor(
    private readonly storage: SpeechStorage,
    private readonly sealer: Sealer,
  ) {}

  private get db(): SpeechDb {
    return this.storage.db
  }

  /**
   * The store on `storage`, sealing with `sealer` (default: the master key file of `dataDir`). A database whose keys
   * were wrapped by a master key the sealer does not hold is refused. On SQLite, audio files an older release kept
   * under `DATA_DIR/voice-store/` are moved into the database first (a PostgreSQL store never reads that folder);
   * then artifacts stored before sealing are sealed.
   */
  static async open(storage: SpeechStorage, dataDir: string, sealer?: Sealer): Promise<VoiceStore> {
    const store = new VoiceStore(storage, sealer ?? sealerOf({ dataDir }))
    await store.checkMaster()
    if (storage.dialect === 'sqlite') await importLegacyVoiceFiles(storage.db, join(dataDir, 'voice-store'))
    await store.sealUnsealed()
    return store
  }

  /**
   * The first process records its master key's id; one holding neither it (nor it as a previous key, during a
   * rotation) stops here, before it could seal anything the others cannot open.
   */
  private async checkMaster(): Promise<void> {
    const current = this.sealer.current.id
    await this.db
      .insertInto('sealing_master')
      .values({ name: 'current', master_id: current })
      .onConflict((c) => c.column('name').doNothing())
      .execute()
    const row = await this.db.selectFrom('sealing_master').select('master_id').executeTakeFirstOrThrow()
    this.sealer.assertHolds(row.master_id, 'voice data', 'SPEECH_MASTER_KEY')
  }

  /** Artifacts of a release before sealing (rows without a data key) sealed in place, then their plaintext cleared. */
  private async sealUnsealed(): Promise<void> {
    let sealed = 0
    for (const kind of ['consents', 'voices'] as const) {
      const t = tablesOf(kind)
      const { rows: ids } = await sql<{ id: string }>`
        SELECT a.${sql.ref(t.column)} AS id FROM ${sql.table(t.artifacts)} a
        LEFT JOIN ${sql.table(t.keys)} k ON k.${sql.ref(t.column)} = a.${sql.ref(t.column)}
        WHERE k.${sql.ref(t.column)} IS NULL`.execute(this.db)
      for (const { id } of ids) {
        await this.db.transaction().execute(async (trx) => {
          const row = await trx
            .selectFrom(t.artifacts)
            .select(['audio', 'embedding'])
            .where(t.column, '=', id)
            .executeTakeFirst()
          if (!row) return
          const { key, wrapped } = this.sealer.newDataKey()
          await trx
            .updateTable(t.artifacts)
            .set({
              audio: seal(key, row.audio, context(kind, id, 'audio')),
              embedding: seal(key, row.embedding, context(kind, id, 'embedding')),
            })
            .where(t.column, '=', id)
            .execute()
          await trx
            .insertInto(t.keys)
            .values({ [t.column]: id, wrapped } as never)
            .execute()
        })
        sealed++
      }
    }
    if (sealed > 0) await this.forget()
  }

  async createConsent(
    owner: string,
    fields: { name: string; language: string },
    artifacts: VoiceArtifacts,
  ): Promise<ConsentRecord> {
    const record = { id: newId('cons'), ...fields, createdAt: now() }
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('consents')
        .values({
          id: record.id,
          owner_id: owner,
          name: record.name,
          language: record.language,
          created_at: record.createdAt,
        })
        .execute()
      const { key, wrapped } = this.sealer.newDataKey()
      await trx
        .insertInto('consent_artifacts')
        .values({ consent_id: record.id, ...sealedColumns(key, 'consents', record.id, artifacts) })
        .execute()
      await trx.insertInto('consent_keys').values({ consent_id: record.id, wrapped }).execute()
    })
    return record
  }

  async getConsent(owner: string, id: string): Promise<ConsentRecord | null> {
    const row = await this.db
      .selectFrom('consents')
      .select(['id', 'name', 'language', 'created_at'])
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    return row ? { id: row.id, name: row.name, language: row.language, createdAt: row.created_at } : null
  }

  /** Newest first; `after` is the last id of the previous page. Null when `after` is not one of the owner's. */
  async listConsents(
    owner: string,
    limit: number,
    after?: string,
  ): Promise<{ data: ConsentRecord[]; hasMore: boolean } | null> {
    let query = this.db
      .selectFrom('consents')
      .select(['id', 'name', 'language', 'created_at'])
      .where('owner_id', '=', owner)
    if (after !== undefined) {
      const cursor = await this.db
        .selectFrom('consents')
        .select('seq')
        .where('id', '=', after)
        .where('owner_id', '=', owner)
        .executeTakeFirst()
      if (!cursor) return null
      query = query.where('seq', '<', cursor.seq)
    }
    const rows = await query
      .orderBy('seq', 'desc')
      .limit(limit + 1)
      .execute()
    return {
      data: rows
        .slice(0, limit)
        .map((r) => ({ id: r.id, name: r.name, language: r.language, createdAt: r.created_at })),
      hasMore: rows.length > limit,
    }
  }

  /**
   * Deletes the consent; its recording, every voice bound to it, their samples and their data keys go by cascade in
   * the same statement (database.ts), on every instance at once; then the keys' traces are cleared.
   */
  async deleteConsent(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('consents')
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.forget()
    return deleted
  }

  /**
   * Saves a voice. Its consent may have been deleted while the sample was being verified: then nothing is saved and
   * the caller gets null.
   */
  async createVoice(
    owner: string,
    fields: {
      name: string
      consentId: string | null
      language: string
      preparedVersion: string
      params: VoiceParams
    },
    artifacts: VoiceArtifacts,
  ): Promise<VoiceRecord | null> {
    const record: VoiceRecord = { id: newId('voice'), ...fields, createdAt: now() }
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (fields.consentId !== null) {
          const consent = await trx
            .selectFrom('consents')
            .select('id')
            .where('id', '=', fields.consentId)
            .where('owner_id', '=', owner)
            .executeTakeFirst()
          if (!consent) return null
        }
        await trx
          .insertInto('voices')
          .values({
            id: record.id,
            owner_id: owner,
            name: record.name,
            consent_id: record.consentId,
            language: record.language,
            created_at: record.createdAt,
            prepared_version: record.preparedVersion,
            prepared: JSON.stringify(record.params),
          })
          .execute()
        const { key, wrapped } = this.sealer.newDataKey()
        await trx
          .insertInto('voice_artifacts')
          .values({ voice_id: record.id, ...sealedColumns(key, 'voices', record.id, artifacts) })
          .execute()
        await trx.insertInto('voice_keys').values({ voice_id: record.id, wrapped }).execute()
        return record
      })
    } catch (err) {
      // PostgreSQL: the consent was there when checked and deleted by a concurrent transaction before the insert.
      if (isForeignKeyViolation(err)) return null
      throw err
    }
  }

  async getVoice(owner: string, id: string): Promise<VoiceRecord | null> {
    const row = await this.db
      .selectFrom('voices')
      .select(VOICE_COLUMNS)
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    return row ? toVoice(row) : null
  }

  async listVoices(owner: string): Promise<VoiceRecord[]> {
    const rows = await this.db
      .selectFrom('voices')
      .select(VOICE_COLUMNS)
      .where('owner_id', '=', owner)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute()
    return rows.map(toVoice)
  }

  /** Deletes the voice and, by cascade, its sample, embedding and data key; then the key's traces are cleared. */
  async deleteVoice(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('voices')
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.forget()
    return deleted
  }

  /** Clears what a deletion leaves of the keys (storage/forget.ts). */
  async forget(): Promise<void> {
    await forgetDeleted(this.storage, ['consent_keys', 'voice_keys'])
  }

  /**
   * Wraps every data key not wrapped by the current master key with it (rotation: the previous key is given as
   * previous until this has run everywhere) and records the current key; returns how many were rewrapped.
   */
  async rewrapKeys(): Promise<number> {
    let rewrapped = 0
    for (const kind of ['consents', 'voices'] as const) {
      const t = tablesOf(kind)
      const { rows } = await sql<{ id: string; wrapped: Uint8Array }>`
        SELECT ${sql.ref(t.column)} AS id, wrapped FROM ${sql.table(t.keys)}`.execute(this.db)
      for (const row of rows) {
        const wrapped = this.sealer.rewrapped(row.wrapped)
        if (!wrapped) continue
        await sql`UPDATE ${sql.table(t.keys)} SET wrapped = ${wrapped} WHERE ${sql.ref(t.column)} = ${row.id}`.execute(
          this.db,
        )
        rewrapped++
      }
    }
    await this.db
      .updateTable('sealing_master')
      .set({ master_id: this.sealer.current.id })
      .where('name', '=', 'current')
      .execute()
    await this.forget()
    return rewrapped
  }

  /** Records a new preparation; false when the voice was revoked meanwhile. */
  async updatePreparation(id: string, version: string, params: VoiceParams): Promise<boolean> {
    const result = await this.db
      .updateTable('voices')
      .set({ prepared_version: version, prepared: JSON.stringify(params) })
      .where('id', '=', id)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** A consent's or voice's audio and embedding; null once it has been revoked (its data key gone with it). */
  async readArtifacts(kind: ArtifactKind, id: string): Promise<VoiceArtifacts | null> {
    const t = tablesOf(kind)
    const { rows } = await sql<{
      audio: Uint8Array
      embedding: Uint8Array
      embedder_version: string
      wrapped: Uint8Array
    }>`
      SELECT a.audio, a.embedding, a.embedder_version, k.wrapped FROM ${sql.table(t.artifacts)} a
      JOIN ${sql.table(t.keys)} k ON k.${sql.ref(t.column)} = a.${sql.ref(t.column)}
      WHERE a.${sql.ref(t.column)} = ${id}`.execute(this.db)
    const row = rows[0]
    if (!row) return null
    const key = this.sealer.unwrap(row.wrapped)
    const embedding = open(key, row.embedding, context(kind, id, 'embedding'))
    return {
      audio: bytesToFloats(open(key, row.audio, context(kind, id, 'audio'))),
      embedding: embedding.byteLength === 0 ? null : bytesToFloats(embedding),
      embedderVersion: row.embedder_version,
    }
  }

  /** The ids whose audio is stored (tests check that revocation removes it). */
  async artifactIds(kind: ArtifactKind): Promise<string[]> {
    const rows =
      kind === 'consents'
        ? await this.db.selectFrom('consent_artifacts').select('consent_id as id').execute()
        : await this.db.selectFrom('voice_artifacts').select('voice_id as id').execute()
    return rows.map((r) => r.id).sort()
  }
}

function tablesOf(kind: ArtifactKind) {
  return kind === 'consents'
    ? ({ artifacts: 'consent_artifacts', keys: 'consent_keys', column: 'consent_id' } as const)
    : ({ artifacts: 'voice_artifacts', keys: 'voice_keys', column: 'voice_id' } as const)
}

function sealedColumns(key: Buffer, kind: ArtifactKind, id: string, a: VoiceArtifacts) {
  return {
    audio: seal(key, floatBytes(a.audio), context(kind, id, 'audio')),
    embedding: seal(
      key,
      a.embedding ? floatBytes(a.embedding) : Buffer.alloc(0),
      context(kind, id, 'embedding'),
    ),
    embedder_version: a.embedderVersion,
  }
}

/** The samples' bytes as stored: float32 in the machine's order (little-endian on every supported platform). */
export const floatBytes = (samples: Float32Array): Buffer =>
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)

export function bytesToFloats(bytes: Uint8Array): Float32Array {
  // A copy: the driver's buffers may not be 4-byte aligned.
  const out = new Float32Array(bytes.byteLength / 4)
  new Uint8Array(out.buffer).set(bytes)
  return out
}
