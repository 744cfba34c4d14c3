import { randomBytes } from 'node:crypto'
import {
  type SavedScript,
  type ScriptDocument,
  type ScriptSummary,
  scriptCharacters,
} from '../../../schema/index.ts'
import type { StudioDb } from './db.ts'

/**
 * Voice designers' scripts in studio.db, each visible to its owner only (the studio user's name, as transcripts and
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

type Body = Pick<ScriptDocument, 'settings' | 'lines'>

export const newScriptId = () => `scr_${randomBytes(16).toString('hex')}`

const unixSeconds = () => Math.floor(Date.now() / 1000)

export class ScriptStore {
  constructor(private readonly db: StudioDb) {}

  /** The owner's scripts, most recently saved first. */
  list(owner: string): ScriptSummary[] {
    return this.db
      .prepare(
        `SELECT id, title, characters, lines, revision, updated_at FROM scripts WHERE owner = ?
         ORDER BY updated_at DESC, created_at DESC, id`,
      )
      .all(owner) as ScriptSummary[]
  }

  get(owner: string, id: string): SavedScript | undefined {
    const row = this.db.prepare('SELECT * FROM scripts WHERE id = ? AND owner = ?').get(id, owner) as
      | Row
      | undefined
    return row && toSaved(row)
  }

  create(owner: string, doc: ScriptDocument, now = unixSeconds()): SavedScript {
    const row = this.db
      .prepare(
        `INSERT INTO scripts (id, owner, title, document, characters, lines, revision, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING *`,
      )
      .get(newScriptId(), owner, ...columns(doc), now, now) as Row
    return toSaved(row)
  }

  /**
   * Replaces the script when `basedOn` is its current revision and returns it with the next revision; returns
   * `conflict` with the script as saved now when another save came between; undefined when the owner has no such
   * script.
   */
  save(
    owner: string,
    id: string,
    doc: ScriptDocument,
    basedOn: number,
    now = unixSeconds(),
  ): { saved: SavedScript } | { conflict: SavedScript } | undefined {
    const row = this.db
      .prepare(
        `UPDATE scripts SET title = ?, document = ?, characters = ?, lines = ?, revision = revision + 1,
           updated_at = ? WHERE id = ? AND owner = ? AND revision = ? RETURNING *`,
      )
      .get(...columns(doc), now, id, owner, basedOn) as Row | undefined
    if (row) return { saved: toSaved(row) }
    const current = this.get(owner, id)
    return current && { conflict: current }
  }

  /** False when the owner has no such script. */
  delete(owner: string, id: string): boolean {
    return this.db.prepare('DELETE FROM scripts WHERE id = ? AND owner = ?').run(id, owner).changes > 0
  }
}

/** title, document, characters, lines: the columns a document fills. */
function columns(doc: ScriptDocument): [string, string, number, number] {
  const body: Body = { settings: doc.settings, lines: doc.lines }
  return [doc.title, JSON.stringify(body), scriptCharacters(doc.lines), doc.lines.length]
}

function toSaved(row: Row): SavedScript {
  const body = JSON.parse(row.document) as Body
  return {
    id: row.id,
    title: row.title,
    settings: body.settings,
    lines: body.lines,
    revision: row.revision,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
