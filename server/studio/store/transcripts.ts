import { randomBytes } from 'node:crypto'
import { createWriteStream, rmSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
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
import { privateDir } from '../../storage/private-files.ts'
import type { StudioStorage } from './db.ts'

/**
 * Saved transcripts of the studio's organization: the service's result exactly as it came (written once, never
 * updated), the reviewers' label edits in their own table with a revision counter, waveform peaks, and the audio
 * under `DATA_DIR/transcripts/`, written to a temporary file and renamed into place so a crash never leaves half a
 * recording under a transcript's name.
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

export class AudioTooLargeError extends Error {}

export const newTranscriptId = () => `tr_${randomBytes(12).toString('base64url')}`

export class TranscriptStore {
  readonly audioDir: string

  constructor(
    private readonly storage: StudioStorage,
    dataDir: string,
  ) {
    this.audioDir = join(dataDir, 'transcripts')
    // Recordings of people are for the studio's user alone: the folder 0700 (tightened if it exists), files 0600.
    privateDir(this.audioDir)
  }

  /**
   * Streams `source` into the audio directory under `fileName`: a hidden temporary file first, flushed to disk, then
   * renamed. More than `maxBytes` stops the copy, removes the temporary file and throws AudioTooLargeError.
   */
  async writeAudio(source: Readable, fileName: string, maxBytes: number): Promise<{ bytes: number }> {
    const final = this.audioPath(fileName)
    const temporary = join(this.audioDir, `.${fileName}.${randomBytes(6).toString('hex')}.part`)
    let bytes = 0
    try {
      await pipeline(
        source,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            bytes += chunk.length
            if (bytes > maxBytes)
              throw new AudioTooLargeError(`The recording is larger than ${maxBytes} bytes.`)
            yield chunk
          }
        },
        createWriteStream(temporary, { flags: 'wx', mode: 0o600 }),
      )
      const handle = await open(temporary, 'r+')
      try {
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temporary, final)
      return { bytes }
    } catch (err) {
      await rm(temporary, { force: true })
      throw err
    }
  }

  audioPath(fileName: string): string {
    if (!/^[\w.-]+$/.test(fileName) || fileName.startsWith('.')) throw new Error('bad audio file name')
    return join(this.audioDir, fileName)
  }

  removeAudio(fileName: string): void {
    rmSync(this.audioPath(fileName), { force: true })
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
    this.removeAudio(row.audio_file)
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
        Object.keys(edits.splits ?? {}).length >
      0,
  }
}
