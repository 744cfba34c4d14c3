import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSpeechService, type SpeechLimits } from '../server/speech/app.ts'
import { createStudio } from '../server/studio/app.ts'
import { openStudioDb } from '../server/studio/database.ts'
import { type BrowserHeaders, sessionHeaders } from '../server/testing/studio.ts'

/**
 * What the backend benchmarks measure against: a real speech service and a real studio backend in front of it, in a
 * throwaway data directory, with the automatic local admin session a studio page would get.
 */
export async function startBenchStack(opts: { limits?: Partial<SpeechLimits>; staticDir?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'))
  const speech = await createSpeechService({ dataDir: dir, limits: opts.limits })
  const speechUrl = await speech.app.listen({ port: 0, host: '127.0.0.1' })
  // As the entry points do (server/main.ts), so the first requests measured are what a started studio gives.
  await speech.warmUp()
  const apiKey = (await speech.keys.create({ kind: 'organization', org: 'bench' })).key
  const studioDb = openStudioDb(dir)
  const studio = await createStudio({
    upstream: { baseUrl: speechUrl, apiKey, kind: 'embedded' },
    db: studioDb,
    autoLocalAdmin: true,
    staticDir: opts.staticDir,
  })
  const studioUrl = await studio.listen({ port: 0, host: '127.0.0.1' })
  const me = await fetch(`${studioUrl}/api/auth/me`)
  const session: BrowserHeaders = sessionHeaders(me, (await me.json()) as { csrfToken: string })
  return {
    speechUrl,
    apiKey,
    studioUrl,
    session,
    /** A key of another organization, whose streams do not count against the studio's two slots. */
    otherOrganizationKey: async (org: string) =>
      (await speech.keys.create({ kind: 'organization', org })).key,
    /** The throwaway data directory and the studio's database, for benchmarks that load fixture data directly. */
    dataDir: dir,
    studioDb,
    async close() {
      await studio.close()
      studioDb.close()
      await speech.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
