import { randomBytes } from 'node:crypto'
import { chmodSync, createWriteStream, mkdirSync, rmSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import {
  EMPTY_EDITS,
  type LabelEdits,
  type Peaks,
  type SavedLabels,
  type StoredResult,
  storedResultSchema,
  type TranscriptSummary,
} from '../../../schema/index.ts'
import type { StudioDb } from './db.ts'

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
  result?: string
  peaks?: string | null
  edits: string | null
  revision: number | null
  updated_at: number | null
  updated_by: string | null
}

export class AudioTooLargeError extends Error {}

export const newTranscriptId = () => `tr_${randomBytes(12).toString('base64url')}`

const SUMMARY_COLUMNS = `t.id, t.name, t.source, t.created_at, t.created_by, t.audio_file, t.audio_type,
  t.audio_bytes, t.duration, t.diarization_status, t.speakers, t.turns, l.edits, l.revision, l.updated_at, l.updated_by`
const FROM = 'FROM transcripts t LEFT JOIN transcript_labels l ON l.transcript_id = t.id'

export class TranscriptStore {
  readonly audioDir: string

  constructor(
    private readonly db: StudioDb,
    dataDir: string,
  ) {
    this.audioDir = join(dataDir, 'transcripts')
    // Recordings of people are for the studio's user alone: the folder 0700 (tightened if it exists), files 0600.
    mkdirSync(this.audioDir, { recursive: true, mode: 0o700 })
    chmodSync(this.audioDir, 0o700)
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

  insert(t: NewTranscript, now = Date.now()): void {
    this.db
      .prepare(
        `INSERT INTO transcripts (id, name, source, created_at, created_by, audio_file, audio_type, audio_bytes,
           duration, diarization_status, speakers, turns, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.id,
        t.name,
        t.source,
        now,
        t.createdBy,
        t.audioFile,
        t.audioType,
        t.audioBytes,
        t.result.duration ?? null,
        t.result.diarization?.status ?? null,
        t.result.diarization?.speakers.length ?? 0,
        t.result.diarization?.turns?.length ?? t.result.segments?.length ?? 0,
        JSON.stringify(t.result),
      )
  }

  /** Newest first. */
  list(): TranscriptSummary[] {
    const rows = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS} ${FROM} ORDER BY t.created_at DESC, t.id`)
      .all() as Row[]
    return rows.map(summarize)
  }

  get(id: string): TranscriptRecord | undefined {
    const row = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS}, t.result, t.peaks ${FROM} WHERE t.id = ?`)
      .get(id) as Row | undefined
    if (!row) return undefined
    return {
      ...summarize(row),
      audioFile: row.audio_file,
      result: storedResultSchema.parse(JSON.parse(row.result ?? 'null')),
      labels: labelsOf(row),
      peaks: row.peaks ? (JSON.parse(row.peaks) as Peaks) : null,
    }
  }

  /** The summary alone (no result, no peaks): cheap for checks before an update. */
  summary(id: string): (TranscriptSummary & { audioFile: string; labels: SavedLabels }) | undefined {
    const row = this.db.prepare(`SELECT ${SUMMARY_COLUMNS} ${FROM} WHERE t.id = ?`).get(id) as Row | undefined
    return row && { ...summarize(row), audioFile: row.audio_file, labels: labelsOf(row) }
  }

  /**
   * Replaces the label edits when `basedOn` is the current revision (0 before any save) and returns the saved labels
   * with the next revision; returns `conflict` with the current labels when someone saved in between.
   */
  saveLabels(
    id: string,
    edits: LabelEdits,
    basedOn: number,
    by: string,
    now = Date.now(),
  ): { saved: SavedLabels } | { conflict: SavedLabels } | undefined {
    return this.db.transaction(() => {
      const current = this.summary(id)
      if (!current) return undefined
      if (current.labels.revision !== basedOn) return { conflict: current.labels }
      const revision = basedOn + 1
      this.db
        .prepare(
          `INSERT INTO transcript_labels (transcript_id, edits, revision, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT(transcript_id) DO UPDATE SET edits = excluded.edits, revision = excluded.revision,
             updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        )
        .run(id, JSON.stringify(edits), revision, now, by)
      return { saved: { edits, revision, updated_at: now, updated_by: by } }
    })()
  }

  savePeaks(id: string, peaks: Peaks): boolean {
    return (
      this.db.prepare('UPDATE transcripts SET peaks = ? WHERE id = ?').run(JSON.stringify(peaks), id)
        .changes > 0
    )
  }

  /** Removes the transcript, its labels and its audio; false when there was none. */
  delete(id: string): boolean {
    const row = this.summary(id)
    if (!row) return false
    this.db.prepare('DELETE FROM transcripts WHERE id = ?').run(id)
    this.removeAudio(row.audioFile)
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
      Object.keys(edits.names).length + Object.keys(edits.merges).length + Object.keys(edits.turns).length >
      0,
  }
}
