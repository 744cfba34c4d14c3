import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { VoiceParams } from '../../engine/index.ts'
import type { SpeechDb, SpeechStorage } from '../database.ts'
import { importLegacyVoiceFiles } from './legacy-voice-files.ts'

/**
 * Consents and saved voices (contract 2.3, 2.5, 3), with their audio and embeddings, all in the service's database
 * (database.ts). A consent or voice and its artifacts are written in one transaction and deleted by one cascade, so
 * after any crash every row has its audio and no audio outlives its row; with PostgreSQL every instance sees the same
 * ones. Every query is scoped to the owner, so a foreign id and a nonexistent one take the same path and give the
 * same answer.
 */

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
  private constructor(private readonly db: SpeechDb) {}

  /**
   * The store on `storage`. On SQLite, audio files an older release kept under `DATA_DIR/voice-store/` are moved into
   * the database first; a PostgreSQL store never reads that folder (its files belong to the SQLite database).
   */
  static async open(storage: SpeechStorage, dataDir: string): Promise<VoiceStore> {
    if (storage.dialect === 'sqlite') await importLegacyVoiceFiles(storage.db, join(dataDir, 'voice-store'))
    return new VoiceStore(storage.db)
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
      await trx
        .insertInto('consent_artifacts')
        .values({ consent_id: record.id, ...artifactColumns(artifacts) })
        .execute()
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
   * Deletes the consent; its recording, every voice bound to it and their samples go by cascade in the same
   * statement (database.ts), on every instance at once.
   */
  async deleteConsent(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('consents')
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    return Number(result.numDeletedRows) > 0
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
        await trx
          .insertInto('voice_artifacts')
          .values({ voice_id: record.id, ...artifactColumns(artifacts) })
          .execute()
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

  /** Deletes the voice and, by cascade, its sample and embedding. */
  async deleteVoice(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('voices')
      .where('id', '=', id)
      .where('owner_id', '=', owner)
      .executeTakeFirst()
    return Number(result.numDeletedRows) > 0
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

  /** A consent's or voice's audio and embedding; null once it has been revoked. */
  async readArtifacts(kind: ArtifactKind, id: string): Promise<VoiceArtifacts | null> {
    const row =
      kind === 'consents'
        ? await this.db
            .selectFrom('consent_artifacts')
            .select(['audio', 'embedding', 'embedder_version'])
            .where('consent_id', '=', id)
            .executeTakeFirst()
        : await this.db
            .selectFrom('voice_artifacts')
            .select(['audio', 'embedding', 'embedder_version'])
            .where('voice_id', '=', id)
            .executeTakeFirst()
    if (!row) return null
    return {
      audio: bytesToFloats(row.audio),
      embedding: row.embedding.byteLength === 0 ? null : bytesToFloats(row.embedding),
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

function artifactColumns(a: VoiceArtifacts) {
  return {
    audio: floatBytes(a.audio),
    embedding: a.embedding ? floatBytes(a.embedding) : Buffer.alloc(0),
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
