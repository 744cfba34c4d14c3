import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  defaultVoiceFor,
  SECOND_GEN_MODEL,
  type StoredTake,
  savedScriptSchema,
  takeCreatedSchema,
  takeErasuresSchema,
  takeListSchema,
} from '../../../schema/index.ts'
import { TEST_BACKEND } from '../../testing/backends.ts'
import {
  createSavedVoice,
  remove,
  type VoiceRecordings,
  type VoiceTarget,
  voiceRecordings,
} from '../../testing/saved-voice.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'

/**
 * Two studio backends on one PostgreSQL database in front of the real local service: a revocation through either
 * erases the takes whichever instance stored them; a revocation at the service directly is found by the periodic
 * check of one instance and seen by both; two instances checking at once count each erased take once.
 */

let svc: RunningService
let recordings: VoiceRecordings
let a: RunningStudio
let b: RunningStudio
let c: RunningStudio
let designerA: BrowserHeaders
let designerB: BrowserHeaders
let adminB: BrowserHeaders
let atService: VoiceTarget

beforeAll(async () => {
  if (TEST_BACKEND !== 'postgres') throw new Error('the cluster suite runs in the postgres project')
  svc = await startSpeechService()
  recordings = await voiceRecordings()
  // a never checks by itself; b checks often: what b finds, a must show.
  a = await startStudio(svc, { voiceCheckIntervalMs: 0 })
  b = await startStudio(svc, { share: a, voiceCheckIntervalMs: 250 })
  designerA = await a.signInAs('designer', 'dana')
  designerB = await b.signInAs('designer', 'dana')
  adminB = await b.signInAs('consent_admin', 'cora')
  atService = { base: `${svc.baseUrl}/v1`, headers: { authorization: `Bearer ${svc.apiKey}` } }
}, 120_000)
afterAll(async () => {
  await c?.close()
  await b?.close()
  await a?.close()
  await recordings?.close()
  await svc?.close()
})

const api = (studio: RunningStudio, as: BrowserHeaders, method: string, path: string, body?: BodyInit) =>
  fetch(`${studio.base}/api${path}`, { method, headers: { ...as }, ...(body ? { body } : {}) })

async function takeWith(studio: RunningStudio, as: BrowserHeaders, voice: string) {
  const script = await fetch(`${studio.base}/api/scripts`, {
    method: 'POST',
    headers: { ...as, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: 'Cluster',
      settings: { model: SECOND_GEN_MODEL, voice: defaultVoiceFor(SECOND_GEN_MODEL) },
      lines: [{ id: 'ln_000001', text: 'One line.' }],
    }),
  })
  expect(script.status).toBe(201)
  const scriptId = savedScriptSchema.parse(await script.json()).id
  const form = new FormData()
  form.append(
    'take',
    JSON.stringify({
      line_id: 'ln_000001',
      text: 'One line.',
      settings: { model: SECOND_GEN_MODEL, voice: { id: voice } },
      status: 'complete',
    }),
  )
  form.append('audio', new Blob([new Uint8Array(4800)], { type: 'audio/pcm' }), 'take.pcm')
  const res = await api(studio, as, 'POST', `/scripts/${scriptId}/takes`, form)
  expect(res.status).toBe(201)
  return { scriptId, take: takeCreatedSchema.parse(await res.json()).take }
}

async function listed(studio: RunningStudio, as: BrowserHeaders, scriptId: string): Promise<StoredTake[]> {
  const res = await api(studio, as, 'GET', `/scripts/${scriptId}/takes`)
  expect(res.status).toBe(200)
  return takeListSchema.parse(await res.json()).data
}

async function waitForErased(studio: RunningStudio, as: BrowserHeaders, scriptId: string, ms = 5_000) {
  const start = Date.now()
  while (Date.now() - start < ms) {
    const [take] = await listed(studio, as, scriptId)
    if (take?.erased) return { take, after: Date.now() - start }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('not erased in time')
}

describe('two studio backends on one PostgreSQL: erasure of what was made with a revoked voice', () => {
  it('a consent revoked through one instance erases the takes another stored', async () => {
    const { consent, voice } = await createSavedVoice(
      { base: `${b.base}/api/v1`, headers: { ...adminB } },
      recordings,
      'Both',
    )
    const { scriptId, take } = await takeWith(a, designerA, voice)
    expect((await api(a, designerA, 'GET', `/takes/${take.id}/audio`)).status).toBe(200)
    const count = await api(a, adminB, 'GET', `/takes/erasable?consent=${consent}`)
    expect(await count.json()).toEqual({ takes: 1, users: 1 })
    expect((await api(b, adminB, 'DELETE', `/v1/audio/voice_consents/${consent}`)).status).toBe(200)
    expect((await api(a, designerA, 'GET', `/takes/${take.id}/audio`)).status).toBe(410)
    const [row] = await listed(a, designerA, scriptId)
    expect(row?.erased?.reason).toBe('consent_revoked')
  }, 120_000)

  it('a consent revoked at the service directly: one instance’s check finds it, both show it', async () => {
    const { consent, voice } = await createSavedVoice(atService, recordings, 'Direct')
    const { scriptId, take } = await takeWith(a, designerA, voice)
    expect((await remove(atService, `/audio/voice_consents/${consent}`)).status).toBe(200)
    // a's list reads rows only and a never checks: only b's check can have erased it.
    const { after } = await waitForErased(a, designerA, scriptId)
    expect(after).toBeLessThan(2_000)
    expect((await listed(b, designerB, scriptId))[0]?.erased?.reason).toBe('consent_revoked')
    expect((await api(a, designerA, 'GET', `/takes/${take.id}/audio`)).status).toBe(410)
  }, 120_000)

  it('two instances checking at once erase each take once in the audit trail', async () => {
    c = await startStudio(svc, { share: a, voiceCheckIntervalMs: 250 })
    const { consent, voice } = await createSavedVoice(atService, recordings, 'Twice')
    const scripts = []
    for (let i = 0; i < 4; i++) scripts.push((await takeWith(i % 2 ? a : b, designerA, voice)).scriptId)
    expect((await remove(atService, `/audio/voice_consents/${consent}`)).status).toBe(200)
    for (const s of scripts) await waitForErased(a, designerA, s)
    // Let both checks run a few more times.
    await new Promise((r) => setTimeout(r, 1_000))
    const res = await api(b, adminB, 'GET', '/audit/erasures')
    const trail = takeErasuresSchema.parse(await res.json()).data.filter((e) => e.voice_id === voice)
    expect(trail.reduce((n, e) => n + e.takes, 0)).toBe(4)
    expect(trail.every((e) => e.owner === 'dana' && e.by === null)).toBe(true)
  }, 120_000)
})
