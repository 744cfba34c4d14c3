import { randomBytes } from 'node:crypto'
import {
  type Pronunciation,
  type PronunciationEntry,
  type PronunciationImportResult,
  pronunciationKey,
} from '../../../schema/index.ts'
import type { StudioStorage, StudioTables } from '../database.ts'

/**
 * The studio's lexicon (studio.db or PostgreSQL), one for the whole studio. One entry per word and case rule, held by
 * a unique key in the database, so two designers adding the same word at once cannot both win. Entries are validated
 * against schema/pronunciations.ts before they reach the store.
 */

type Row = Omit<StudioTables['pronunciations'], 'match_key'>

const newPronunciationId = () => `pron_${randomBytes(16).toString('hex')}`
const unixSeconds = () => Math.floor(Date.now() / 1000)

export class PronunciationStore {
  constructor(private readonly storage: StudioStorage) {}

  private get db() {
    return this.storage.db
  }

  /** Every entry, alphabetically by word. */
  async list(): Promise<Pronunciation[]> {
    const rows = await this.db
      .selectFrom('pronunciations')
      .select([
        'id',
        'text',
        'say_as',
        'phonemes',
        'case_sensitive',
        'created_by',
        'created_at',
        'updated_at',
      ])
      .orderBy('match_key')
      .execute()
    return rows.map(toPronunciation)
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('pronunciations')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /** The new entry, or `exists` with the entry already kept for this word and case rule. */
  async add(
    by: string,
    entry: PronunciationEntry,
    now = unixSeconds(),
  ): Promise<{ added: Pronunciation } | { exists: Pronunciation }> {
    const row = await this.db
      .insertInto('pronunciations')
      .values({
        id: newPronunciationId(),
        ...columns(entry),
        created_by: by,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('match_key').doNothing())
      .returningAll()
      .executeTakeFirst()
    if (row) return { added: toPronunciation(row) }
    const existing = await this.db
      .selectFrom('pronunciations')
      .selectAll()
      .where('match_key', '=', pronunciationKey(entry))
      .executeTakeFirstOrThrow()
    return { exists: toPronunciation(existing) }
  }

  /**
   * Adds the entries in one transaction, an entry of a word and case rule already kept replacing it (a later entry
   * of the file replacing an earlier one), so an import is kept whole or not at all. `limit` caps the lexicon.
   */
  async import(
    by: string,
    entries: readonly PronunciationEntry[],
    limit: number,
    now = unixSeconds(),
  ): Promise<Omit<PronunciationImportResult, 'data'> | { overLimit: number }> {
    const unique = new Map(entries.map((e) => [pronunciationKey(e), e]))
    return this.db.transaction().execute(async (trx) => {
      const keys = [...unique.keys()]
      const existing = new Set<string>()
      for (let i = 0; i < keys.length; i += 500) {
        const rows = await trx
          .selectFrom('pronunciations')
          .select('match_key')
          .where('match_key', 'in', keys.slice(i, i + 500))
          .execute()
        for (const r of rows) existing.add(r.match_key)
      }
      const total = await trx
        .selectFrom('pronunciations')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow()
      const after = Number(total.n) + unique.size - existing.size
      if (after > limit) return { overLimit: after }
      for (const entry of unique.values()) {
        const values = columns(entry)
        await trx
          .insertInto('pronunciations')
          .values({ id: newPronunciationId(), ...values, created_by: by, created_at: now, updated_at: now })
          .onConflict((oc) =>
            oc.column('match_key').doUpdateSet({
              text: values.text,
              say_as: values.say_as,
              phonemes: values.phonemes,
              updated_at: now,
            }),
          )
          .execute()
      }
      return { added: unique.size - existing.size, replaced: existing.size }
    })
  }

  /** False when there is no such entry. */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('pronunciations').where('id', '=', id).executeTakeFirst()
    return Number(result.numDeletedRows) > 0
  }
}

function columns(entry: PronunciationEntry) {
  return {
    match_key: pronunciationKey(entry),
    text: entry.text.replace(/\s+/g, ' '),
    say_as: entry.say_as,
    phonemes: entry.phonemes ?? null,
    case_sensitive: entry.case_sensitive ? 1 : 0,
  }
}

function toPronunciation(row: Row): Pronunciation {
  return {
    id: row.id,
    text: row.text,
    say_as: row.say_as,
    phonemes: row.phonemes,
    case_sensitive: row.case_sensitive === 1,
    created_by: row.created_by,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  }
}
