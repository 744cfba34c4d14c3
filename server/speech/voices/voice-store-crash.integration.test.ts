import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { speechTestDatabase } from '../../testing/speech-database.ts'
import { VoiceStore } from './voice-store.ts'

/**
 * SIGKILL at random moments of voice and consent creation and deletion, in a real child process on the tests' real
 * database (speech.db, or PostgreSQL in the `postgres` project). Invariants that must hold at every instant, with no
 * recovery step: every consent and voice has its audio, no audio outlives its consent or voice, and no voice outlives
 * its consent — each is written in one transaction and deleted by one cascade (voice-store.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'voice-crash-'))
const database = speechTestDatabase(dir)
afterAll(async () => {
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

const CHURN = join(import.meta.dirname, '../../testing/voice-store-churn.ts')

function runAndKill(afterMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHURN, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...database.env },
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

describe('voice store under SIGKILL', () => {
  it('never leaves a consent or voice without its audio, audio without its row, or a voice without its consent', async () => {
    let consentsSeen = 0
    for (let i = 0; i < 8; i++) {
      const ticks = await runAndKill(30 + Math.floor(Math.random() * 400))
      expect(ticks).toBeGreaterThan(0)

      const storage = await database.open()
      try {
        const { db } = storage
        const ids = async (table: 'consents' | 'voices') =>
          (await db.selectFrom(table).select('id').execute()).map((r) => r.id).sort()
        const consents = await ids('consents')
        const voices = await ids('voices')
        const orphanVoices = await db
          .selectFrom('voices as v')
          .leftJoin('consents as c', 'c.id', 'v.consent_id')
          .select('v.id')
          .where('v.consent_id', 'is not', null)
          .where('c.id', 'is', null)
          .execute()
        expect(orphanVoices).toEqual([])
        // Opening the store runs no recovery at all: the rows and their audio already match one to one.
        const store = await VoiceStore.open(storage, dir)
        expect(await store.artifactIds('consents')).toEqual(consents)
        expect(await store.artifactIds('voices')).toEqual(voices)
        for (const id of voices) expect((await store.readArtifacts('voices', id))?.audio.length).toBe(256_000)
        expect(existsSync(join(dir, 'voice-store'))).toBe(false)
        consentsSeen += consents.length
      } finally {
        await storage.close()
      }
    }
    // The kills landed while there was something to break.
    expect(consentsSeen).toBeGreaterThan(0)
  }, 180_000)
})
