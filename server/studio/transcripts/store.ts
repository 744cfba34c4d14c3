import { randomBytes } from 'node:crypto'
import { createReadStream, readdirSync, rmSync, statSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { sql } from 'kysely'
import {
  EMPTY_EDITS,
  type LabelEdits,
  type Peaks,
  type SavedLabels,
  type StoredResult,
  storedResultSchema,
  type TranscriptSummary,
} from '../../../schema/index.ts'
import { BlobStore, BlobTooLargeError } from '../../storage/blobs.ts'
import { privateDir } from '../../storage/private-files.ts'
import type { StudioStorage } from '../database.ts'

/**
 * Saved transcripts of the studio's organization: the service's result exactly as it came (written once, never
 * updated), the reviewers' label edits and text corrections in their own table with a revision counter, waveform peaks, and the audio in
 * the database in chunks (server/storage/blobs.ts), so every backend instance serves every recording. A recording's
 * chunks are written before its row; a crash between the two leaves chunks no row names, swept after a day.
 */

export interface NewTranscript {
  id: string
  name: string
  source: 'upload' | 'live'
  createdBy: string
  audioFile: string
  audioType: string
  audioBytes: number
  result: StoredResult
}

export interface TranscriptRecord extends TranscriptSummary {
  audioFile: string
  result: StoredResult
  labels: SavedLabels
  peaks: Peaks | null
}

type Row = {
  id: string
  name: string
  source: 'upload' | 'live'
  created_at: number
  created_by: string
  audio_file: string
  audio_type: string
  audio_bytes: number
  duration: number | null
  diarization_status: string | null
  speakers: number
  turns: number
  edits: string | null
  revision: number | null
  updated_at: number | null
  updated_by: string | null
}

/** A recording larger than the limit it was written under. */
export { BlobTooLargeError as AudioTooLargeError }

/** A folder's entries; none when it does not exist. */
function safeList(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

export const newTranscriptId = () => `tr_${randomBytes(12).toString('base64url')}`

/** Chunks older than this that no transcript names are what a crash left: no upload or live session lasts a day. */
const ORPHAN_AGE_MS = 24 * 3600_000

export class TranscriptStore {
  /** Where a live session's recording is written while it lasts (this instance's own disk), until it is kept. */
  readonly spoolDir: string
  /** Where an older studio kept recordings as files; moved into the database by `adoptFiles`. */
  private readonly legacyDir: string
  private readonly audio: BlobStore

  constructor(
    private readonly storage: StudioStorage,
    dataDir: string,
  ) {
    // Recordings of people are for the studio's user alone: the folder 0700 (tightened if it exists), files 0600.
    this.spoolDir = join(dataDir, 'spool')
    privateDir(this.spoolDir)
    this.legacyDir = join(dataDir, 'transcripts')
    this.audio = new BlobStore(storage.db, 'transcript_audio')
  }

  /**
   * Keeps `source` as the recording `key`, as it arrives. More than `maxBytes` stops the copy, removes what was
   * written and throws AudioTooLargeError.
   */
  async writeAudio(
    source: AsyncIterable<Uint8Array>,
    key: string,
    maxBytes: number,
  ): Promise<{ bytes: number }> {
    return { bytes: await this.audio.put(key, source, maxBytes) }
  }

  /** The whole recording, to forward it to the service in one request (at most the upload limit, 25 MiB). */
  async readAudio(key: string): Promise<Buffer<ArrayBuffer>> {
    const bytes = await this.audio.read(key)
    if (!bytes) throw new Error(`recording ${key} is missing`)
    return bytes
  }

  /** Bytes `start`..`end` (inclusive) of the recording, read as the client takes them. */
  audioStream(key: string, start: number, end: number): Readable {
    return this.audio.stream(key, start, end)
  }

  /** Removes a recording no transcript will name (an upload refused or cut short). Never throws. */
  async removeAudio(key: string): Promise<void> {
    await this.audio.delete(key).catch(() => {}) // what stays behind is swept after a day
  }

  /**
   * Moves the recordings an older studio kept under `DATA_DIR/transcripts/` into the database, each file removed
   * once its chunks are written, then sweeps chunks a crash left behind. Run once at start; safe to run again.
   */
  async adoptFiles(): Promise<{ adopted: number; swept: number }> {
    let adopted = 0
    for (const name of safeList(this.legacyDir)) {
      const path = join(this.legacyDir, name)
      if (name.startsWith('.')) {
        rmSync(path, { force: true }) // a temporary file of an upload cut short by a crash
        continue
      }
      const row = await this.db
        .selectFrom('transcripts')
        .select('id')
        .where('audio_file', '=', name)
        .executeTakeFirst()
      if (row && !(await this.audio.has(name))) {
        await this.audio.put(name, createReadStream(path))
        adopted += 1
      }
      await rm(path, { force: true })
    }
    // A live session's spool file outlives its session only when the instance died during it.
    for (const name of safeList(this.spoolDir)) {
      const path = join(this.spoolDir, name)
      if (Date.now() - statSync(path).mtimeMs > ORPHAN_AGE_MS) rmSync(path, { force: true })
    }
    const swept = await this.audio.sweep(async (keys) => {
      const rows = await this.db
        .selectFrom('transcripts')
        .select('audio_file')
        .where('audio_file', 'in', keys)
        .execute()
      return new Set(rows.map((r) => r.audio_file))
    }, ORPHAN_AGE_MS)
    return { adopted, swept }
  }

  private get db() {
    return this.storage.db
  }

  /** The summary's columns, with the labels joined. */
  private summaries() {
    return this.db
      .selectFrom('transcripts as t')
      .leftJoin('transcript_labels as l', 'l.transcript_id', 't.id')
      .select([
        't.id',
        't.name',
        't.source',
        't.created_at',
        't.created_by',
        't.audio_file',
        't.audio_type',
        't.audio_bytes',
        't.duration',
        't.diarization_status',
        't.speakers',
        't.turns',
        'l.edits',
        'l.revision',
        'l.updated_at',
        'l.updated_by',
      ])
  }

  async insert(t: NewTranscript, now = Date.now()): Promise<void> {
    await this.db
      .insertInto('transcripts')
      .values({
        id: t.id,
        name: t.name,
        source: t.source,
        created_at: now,
        created_by: t.createdBy,
        audio_file: t.audioFile,
        audio_type: t.audioType,
        audio_bytes: t.audioBytes,
        duration: t.result.duration ?? null,
        diarization_status: t.result.diarization?.status ?? null,
        speakers: t.result.diarization?.speakers.length ?? 0,
        turns: t.result.diarization?.turns?.length ?? t.result.segments?.length ?? 0,
        result: JSON.stringify(t.result),
      })
      .execute()
  }

  /** Newest first. */
  async list(): Promise<TranscriptSummary[]> {
    const rows = await this.summaries().orderBy('t.created_at', 'desc').orderBy('t.id').execute()
    return rows.map(summarize)
  }

  async get(id: string): Promise<TranscriptRecord | undefined> {
    const row = await this.summaries()
      .select(['t.result', 't.peaks'])
      .where('t.id', '=', id)
      .executeTakeFirst()
    if (!row) return undefined
    return {
      ...summarize(row),
      audioFile: row.audio_file,
      result: storedResultSchema.parse(JSON.parse(row.result)),
      labels: labelsOf(row),
      peaks: row.peaks ? (JSON.parse(row.peaks) as Peaks) : null,
    }
  }

  /** The summary alone (no result, no peaks): cheap for checks before an update. */
  async summary(
    id: string,
  ): Promise<(TranscriptSummary & { audioFile: string; labels: SavedLabels }) | undefined> {
    const row = await this.summaries().where('t.id', '=', id).executeTakeFirst()
    return row && { ...summarize(row), audioFile: row.audio_file, labels: labelsOf(row) }
  }

  /**
   * Replaces the label edits when `basedOn` is the current revision (0 before any save) and returns the saved labels
   * with the next revision; returns `conflict` with the current labels when someone saved in between. The check and
   * the write are one statement — the first save an INSERT that does nothing when labels exist, later ones an UPDATE
   * on the revision — so of two saves on one revision, through one instance or two, exactly one wins.
   */
  async saveLabels(
    id: string,
    edits: LabelEdits,
    basedOn: number,
    by: string,
    now = Date.now(),
  ): Promise<{ saved: SavedLabels } | { conflict: SavedLabels } | undefined> {
    const text = JSON.stringify(edits)
    const written =
      basedOn === 0
        ? await this.db
            .insertInto('transcript_labels')
            .columns(['transcript_id', 'edits', 'revision', 'updated_at', 'updated_by'])
            .expression((eb) =>
              eb
                .selectFrom('transcripts')
                .select((s) => [
                  s.ref('id').as('transcript_id'),
                  s.val(text).as('edits'),
                  sql.lit(1).as('revision'),
                  s.cast(s.val(now), 'bigint').as('updated_at'),
                  s.val(by).as('updated_by'),
                ])
                .where('id', '=', id),
            )
            .onConflict((oc) => oc.column('transcript_id').doNothing())
            .returning('revision')
            .executeTakeFirst()
        : await this.db
            .updateTable('transcript_labels')
            .set((eb) => ({ edits: text, revision: eb('revision', '+', 1), updated_at: now, updated_by: by }))
            .where('transcript_id', '=', id)
            .where('revision', '=', basedOn)
            .returning('revision')
            .executeTakeFirst()
    if (written) return { saved: { edits, revision: written.revision, updated_at: now, updated_by: by } }
    const current = await this.summary(id)
    return current && { conflict: current.labels }
  }

  async savePeaks(id: string, peaks: Peaks): Promise<boolean> {
    const result = await this.db
      .updateTable('transcripts')
      .set({ peaks: JSON.stringify(peaks) })
      .where('id', '=', id)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) > 0
  }

  /** Removes the transcript, its labels and its audio; false when there was none. */
  async delete(id: string): Promise<boolean> {
    const row = await this.db
      .deleteFrom('transcripts')
      .where('id', '=', id)
      .returning('audio_file')
      .executeTakeFirst()
    if (!row) return false
    await this.removeAudio(row.audio_file)
    return true
  }
}

function labelsOf(row: Row): SavedLabels {
  return {
    edits: row.edits ? (JSON.parse(row.edits) as LabelEdits) : EMPTY_EDITS,
    revision: row.revision ?? 0,
    updated_at: row.updated_at,
    updated_by: row.updated_by,
  }
}

function summarize(row: Row): TranscriptSummary {
  const edits = row.edits ? (JSON.parse(row.edits) as LabelEdits) : EMPTY_EDITS
  return {
    id: row.id,
    name: row.name,
    source: row.source,
    created_at: row.created_at,
    created_by: row.created_by,
    duration: row.duration,
    audio_type: row.audio_type,
    audio_bytes: row.audio_bytes,
    diarization_status: row.diarization_status,
    speakers: row.speakers,
    turns: row.turns,
    edited:
      Object.keys(edits.names).length +
        Object.keys(edits.merges).length +
        Object.keys(edits.turns).length +
        Object.keys(edits.splits ?? {}).length +
        Object.keys(edits.texts ?? {}).length >
      0,
  }
}
