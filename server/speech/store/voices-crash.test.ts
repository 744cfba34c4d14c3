import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSpeechDb } from './db.ts'
import { VoiceStore } from './voices.ts'

/**
 * SIGKILL at random moments of voice and consent creation and deletion, in a real child process on real SQLite and
 * files. Invariants that must hold at every instant: every row has its files, and no voice outlives its consent.
 * Files without a row (a write or delete the kill interrupted) are removed when the store next opens; after that
 * rows and directories match exactly.
 */
const dir = mkdtempSync(join(tmpdir(), 'voice-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const CHURN = join(import.meta.dirname, '../../testing/voice-store-churn.ts')

function runAndKill(afterMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHURN, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let ticks = 0
    let errors = ''
    child.stderr.on('data', (d) => {
      errors += d
    })
    child.stdout.on('data', (d: Buffer) => {
      // Kill only once the loop runs, at a random moment after.
      if (ticks === 0) setTimeout(() => child.kill('SIGKILL'), afterMs)
      ticks += d.length
    })
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(ticks) : reject(new Error(`churn exited on its own: ${errors}`)),
    )
  })
}

function consistency() {
  const db = openSpeechDb(dir)
  try {
    const ids = (table: string) =>
      (db.prepare(`SELECT id FROM ${table}`).all() as { id: string }[]).map((r) => r.id)
    const files = (kind: string) => readdirSync(join(dir, 'voice-store', kind))
    const orphanVoices = db
      .prepare(
        'SELECT v.id FROM voices v LEFT JOIN consents c ON c.id = v.consent_id WHERE v.consent_id IS NOT NULL AND c.id IS NULL',
      )
      .all()
    return { db, consents: ids('consents'), voices: ids('voices'), files, orphanVoices }
  } catch (err) {
    db.close()
    throw err
  }
}

describe('voice store under SIGKILL', () => {
  it('never leaves a row without files or a voice without its consent; recovery removes orphaned files', async () => {
    for (let i = 0; i < 8; i++) {
      const ticks = await runAndKill(30 + Math.floor(Math.random() * 400))
      expect(ticks).toBeGreaterThan(0)

      const before = consistency()
      expect(before.orphanVoices).toEqual([])
      for (const id of before.consents)
        expect(existsSync(join(dir, 'voice-store', 'consents', id, 'audio.f32'))).toBe(true)
      for (const id of before.voices)
        expect(existsSync(join(dir, 'voice-store', 'voices', id, 'embedding.f32'))).toBe(true)

      // Opening the store runs recovery; then rows and directories match one to one.
      new VoiceStore(before.db, dir)
      expect(before.files('consents').sort()).toEqual([...before.consents].sort())
      expect(before.files('voices').sort()).toEqual([...before.voices].sort())
      expect(before.files('staging')).toEqual([])
      before.db.close()
    }
  }, 180_000)
})
