import { randomBytes } from 'node:crypto'
import {
  type SavedScript,
  type ScriptDocument,
  type ScriptSummary,
  scriptCharacters,
} from '../../../schema/index.ts'
import { forgetDeleted } from '../../storage/forget.ts'
import type { StudioStorage } from '../database.ts'

/**
 * Voice designers' scripts (studio.db or PostgreSQL), each visible to its owner only (the studio user's name, as transcripts and
 * the audit trail record people). A script is saved whole; every save is one UPDATE guarded by the revision it was
 * edited from, so of two browsers saving on the same revision the second is refused rather than overwriting.
 * Documents are validated against schema/scripts.ts before they reach the store.
 */

type Row = {
  id: string
  title: string
  document: string
  characters: number
  lines: number
  revision: number
  created_at: number
  updated_at: number
}

/** Scripts saved before casts have none in their document. */
type Body = Pick<ScriptDocument, 'settings' | 'lines' | 'cast'>

export const newScriptId = () => `scr_${randomBytes(16).toString('hex')}`

const unixSeconds = () => Math.floor(Date.now() / 1000)

export class ScriptStore {
  constructor(private readonly storage: StudioStorage) {}

  private get db() {
    return this.storage.db
  }

  /** The owner's scripts, most recently saved first. */
  async list(owner: string): Promise<ScriptSummary[]> {
    return this.db
      .selectFrom('scripts')
      .select(['id', 'title', 'characters', 'lines', 'revision', 'updated_at'])
      .where('owner', '=', owner)
      .orderBy('updated_at', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute()
  }

  async get(owner: string, id: string): Promise<SavedScript | undefined> {
    const row = await this.db
      .selectFrom('scripts')
      .selectAll()
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst()
    return row && toSaved(row)
  }

  async create(owner: string, doc: ScriptDocument, now = unixSeconds()): Promise<SavedScript> {
    const row = await this.db
      .insertInto('scripts')
      .values({ id: newScriptId(), owner, ...columns(doc), revision: 1, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toSaved(row)
  }

  /**
   * Replaces the script when `basedOn` is its current revision and returns it with the next revision; returns
   * `conflict` with the script as saved now when another save came between; undefined when the owner has no such
   * script. The check and the write are one conditional UPDATE, so two instances saving on the same revision at
   * once cannot both succeed.
   */
  async save(
    owner: string,
    id: string,
    doc: ScriptDocument,
    basedOn: number,
    now = unixSeconds(),
  ): Promise<{ saved: SavedScript } | { conflict: SavedScript } | undefined> {
    const row = await this.db
      .updateTable('scripts')
      .set((eb) => ({ ...columns(doc), revision: eb('revision', '+', 1), updated_at: now }))
      .where('id', '=', id)
      .where('owner', '=', owner)
      .where('revision', '=', basedOn)
      .returningAll()
      .executeTakeFirst()
    if (row) return { saved: toSaved(row) }
    const current = await this.get(owner, id)
    return current && { conflict: current }
  }

  /** False when the owner has no such script. Its takes, their audio and data keys go by cascade; the keys' traces after. */
  async delete(owner: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('scripts')
      .where('id', '=', id)
      .where('owner', '=', owner)
      .executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await forgetDeleted(this.storage, ['take_keys'])
    return deleted
  }
}

/** The columns a document fills. */
function columns(doc: ScriptDocument) {
  const body: Body = { settings: doc.settings, lines: doc.lines, cast: doc.cast ?? [] }
  return {
    title: doc.title,
    document: JSON.stringify(body),
    characters: scriptCharacters(doc.lines),
    lines: doc.lines.length,
  }
}

function toSaved(row: Row): SavedScript {
  const body = JSON.parse(row.document) as Body
  return {
    id: row.id,
    title: row.title,
    settings: body.settings,
    lines: body.lines,
    cast: body.cast ?? [],
    revision: row.revision,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
