import { existsSync, readdirSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SpeechDb } from '../database.ts'

/**
 * Adopts the audio an older release kept in files — `<root>/consents/<id>/` and `<root>/voices/<id>/`, each holding
 * `audio.f32`, `embedding.f32` and `embedder.txt`, with leftovers of interrupted writes under `staging/` — by moving
 * it into the database (migration 0004_artifacts). Each directory is removed only once its row is committed, and a
 * directory whose row is already there or gone is simply removed, so a crash at any point is finished by the next
 * start. Directories without a row were orphans of that release's own crash recovery: they go too.
 */
export async function importLegacyVoiceFiles(db: SpeechDb, root: string): Promise<void> {
  if (!existsSync(root)) return
  rmSync(join(root, 'staging'), { recursive: true, force: true })
  for (const kind of ['consents', 'voices'] as const) {
    const dir = join(root, kind)
    if (!existsSync(dir)) continue
    for (const id of readdirSync(dir)) {
      const files = join(dir, id)
      const exists = await db.selectFrom(kind).select('id').where('id', '=', id).executeTakeFirst()
      if (exists) {
        const [audio, embedding, version] = await Promise.all(
          ['audio.f32', 'embedding.f32', 'embedder.txt'].map((name) => readFile(join(files, name))),
        )
        const values = {
          audio: audio as Buffer,
          embedding: embedding as Buffer,
          embedder_version: (version as Buffer).toString('utf8'),
        }
        if (kind === 'consents')
          await db
            .insertInto('consent_artifacts')
            .values({ consent_id: id, ...values })
            .onConflict((oc) => oc.doNothing())
            .execute()
        else
          await db
            .insertInto('voice_artifacts')
            .values({ voice_id: id, ...values })
            .onConflict((oc) => oc.doNothing())
            .execute()
      }
      rmSync(files, { recursive: true, force: true })
    }
  }
  rmSync(root, { recursive: true, force: true })
}
