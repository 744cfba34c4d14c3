import { randomBytes } from 'node:crypto'
import type { VoiceParams } from '../../engine/index.ts'
import type { Db } from './db.ts'
import { type ArtifactKind, bytesToFloats, floatBytes, VoiceFiles } from './voice-files.ts'

/**
 * Consents and saved voices (spec 2.3, 2.5, 3): rows in SQLite, audio and embeddings on disk. Every query is scoped
 * to the owner, so a foreign id and a nonexistent one take the same path and give the same answer.
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

/** What is kept on disk for a consent or voice: its audio (16 kHz float) and the speaker embedding. */
export interface VoiceArtifacts {
  audio: Float32Array
  embedding: Float32Array | null
  /** The embedder's version, so a changed embedder recomputes instead of comparing incomparable vectors. */
  embedderVersion: string
}

const AUDIO_FILE = 'audio.f32'
const EMBEDDING_FILE = 'embedding.f32'
const EMBEDDER_FILE = 'embedder.txt'

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

export class VoiceStore {
  private readonly files: VoiceFiles

  constructor(
    private readonly db: Db,
    dataDir: string,
  ) {
    this.files = new VoiceFiles(`${dataDir}/voice-store`)
    this.files.sweep((kind, id) => this.exists(kind, id))
  }

  createConsent(
    owner: string,
    fields: { name: string; language: string },
    artifacts: VoiceArtifacts,
  ): ConsentRecord {
    const record = { id: newId('cons'), ...fields, createdAt: now() }
    this.files.publish('consents', record.id, artifactFiles(artifacts))
    try {
      this.db
        .prepare('INSERT INTO consents (id, owner_id, name, language, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(record.id, owner, record.name, record.language, record.createdAt)
    } catch (err) {
      this.files.remove('consents', record.id)
      throw err
    }
    return record
  }

  getConsent(owner: string, id: string): ConsentRecord | null {
    const row = this.db
      .prepare('SELECT id, name, language, created_at FROM consents WHERE id = ? AND owner_id = ?')
      .get(id, owner) as { id: string; name: string; language: string; created_at: number } | undefined
    return row ? { id: row.id, name: row.name, language: row.language, createdAt: row.created_at } : null
  }

  /** Newest first; `after` is the last id of the previous page. Null when `after` is not one of the owner's. */
  listConsents(
    owner: string,
    limit: number,
    after?: string,
  ): { data: ConsentRecord[]; hasMore: boolean } | null {
    let before = Number.MAX_SAFE_INTEGER
    if (after !== undefined) {
      const cursor = this.db
        .prepare('SELECT seq FROM consents WHERE id = ? AND owner_id = ?')
        .get(after, owner) as { seq: number } | undefined
      if (!cursor) return null
      before = cursor.seq
    }
    const rows = this.db
      .prepare(
        'SELECT id, name, language, created_at FROM consents WHERE owner_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
      )
      .all(owner, before, limit + 1) as { id: string; name: string; language: string; created_at: number }[]
    return {
      data: rows
        .slice(0, limit)
        .map((r) => ({ id: r.id, name: r.name, language: r.language, createdAt: r.created_at })),
      hasMore: rows.length > limit,
    }
  }

  /** Deletes the consent and, in the same transaction, every voice bound to it; then their files. */
  deleteConsent(owner: string, id: string): boolean {
    const revoked = this.db.transaction(() => {
      const voices = this.db.prepare('SELECT id FROM voices WHERE consent_id = ?').all(id) as { id: string }[]
      const { changes } = this.db.prepare('DELETE FROM consents WHERE id = ? AND owner_id = ?').run(id, owner)
      return changes === 0 ? null : voices.map((v) => v.id)
    })()
    if (revoked === null) return false
    for (const voiceId of revoked) this.files.remove('voices', voiceId)
    this.files.remove('consents', id)
    return true
  }

  /**
   * Saves a voice. Its consent may have been deleted while the sample was being verified: the foreign key then
   * refuses the row, the files go, and the caller gets null.
   */
  createVoice(
    owner: string,
    fields: {
      name: string
      consentId: string | null
      language: string
      preparedVersion: string
      params: VoiceParams
    },
    artifacts: VoiceArtifacts,
  ): VoiceRecord | null {
    const record: VoiceRecord = { id: newId('voice'), ...fields, createdAt: now() }
    this.files.publish('voices', record.id, artifactFiles(artifacts))
    const saved = this.db.transaction(() => {
      if (fields.consentId !== null && !this.getConsent(owner, fields.consentId)) return false
      this.db
        .prepare(
          `INSERT INTO voices (id, owner_id, name, consent_id, language, created_at, prepared_version, prepared)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.id,
          owner,
          record.name,
          record.consentId,
          record.language,
          record.createdAt,
          record.preparedVersion,
          JSON.stringify(record.params),
        )
      return true
    })
    try {
      if (saved()) return record
    } catch (err) {
      this.files.remove('voices', record.id)
      throw err
    }
    this.files.remove('voices', record.id)
    return null
  }

  getVoice(owner: string, id: string): VoiceRecord | null {
    const row = this.db.prepare('SELECT * FROM voices WHERE id = ? AND owner_id = ?').get(id, owner) as
      | VoiceRow
      | undefined
    return row ? toVoice(row) : null
  }

  listVoices(owner: string): VoiceRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM voices WHERE owner_id = ? ORDER BY created_at DESC, id')
      .all(owner) as VoiceRow[]
    return rows.map(toVoice)
  }

  deleteVoice(owner: string, id: string): boolean {
    const { changes } = this.db.prepare('DELETE FROM voices WHERE id = ? AND owner_id = ?').run(id, owner)
    if (changes === 0) return false
    this.files.remove('voices', id)
    return true
  }

  /** Records a new preparation; false when the voice was revoked meanwhile. */
  updatePreparation(id: string, version: string, params: VoiceParams): boolean {
    const { changes } = this.db
      .prepare('UPDATE voices SET prepared_version = ?, prepared = ? WHERE id = ?')
      .run(version, JSON.stringify(params), id)
    return changes > 0
  }

  async readArtifacts(kind: ArtifactKind, id: string): Promise<VoiceArtifacts> {
    const [audio, embedding, version] = await Promise.all([
      this.files.read(kind, id, AUDIO_FILE),
      this.files.read(kind, id, EMBEDDING_FILE),
      this.files.read(kind, id, EMBEDDER_FILE),
    ])
    return {
      audio: bytesToFloats(audio),
      embedding: embedding.byteLength === 0 ? null : bytesToFloats(embedding),
      embedderVersion: version.toString('utf8'),
    }
  }

  /** The directory of a consent's or voice's files (tests check they are gone after revocation). */
  artifactDir(kind: ArtifactKind, id: string): string {
    return this.files.dir(kind, id)
  }

  private exists(kind: ArtifactKind, id: string): boolean {
    const table = kind === 'consents' ? 'consents' : 'voices'
    return this.db.prepare(`SELECT 1 FROM ${table} WHERE id = ?`).get(id) !== undefined
  }
}

function artifactFiles(a: VoiceArtifacts): Record<string, Uint8Array> {
  return {
    [AUDIO_FILE]: floatBytes(a.audio),
    [EMBEDDING_FILE]: a.embedding ? floatBytes(a.embedding) : new Uint8Array(0),
    [EMBEDDER_FILE]: Buffer.from(a.embedderVersion, 'utf8'),
  }
}
