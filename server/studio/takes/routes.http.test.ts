import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  defaultVoiceFor,
  erasableTakesSchema,
  MAX_TAKE_AUDIO_BYTES,
  MAX_TAKES_PER_USER,
  type NewTake,
  SECOND_GEN_MODEL,
  type StoredTake,
  savedScriptSchema,
  scriptDocumentSchema,
  storedTakeSchema,
  takeCreatedSchema,
  takeErasuresSchema,
  takeListSchema,
} from '../../../schema/index.ts'
import { openStorage } from '../../storage/index.ts'
import { TEST_BACKEND } from '../../testing/backends.ts'
import {
  createSavedVoice,
  createVoiceOf,
  remove,
  type VoiceRecordings,
  type VoiceTarget,
  voiceRecordings,
} from '../../testing/saved-voice.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import {
  type BrowserHeaders,
  type RunningStudio,
  startStudio,
  studioRefusal,
  testDatabase,
} from '../../testing/studio.ts'
import { pcm16WavHeader } from '../../wav.ts'
import { STUDIO_MIGRATIONS, type StudioTables } from '../database.ts'
import { ScriptStore } from '../scripts/store.ts'
import { studioSealerOf, TakeStore } from './store.ts'

/**
 * The take history against the real backend (its own studio.db, or PostgreSQL in the `postgres` project) in front of
 * the real local service: owner scoping (404, never 403), roles and CSRF, the caps with the oldest unstarred dropped,
 * one starred take per line, and hostile uploads.
 */

let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders
let otherDesigner: BrowserHeaders
let reviewer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
  otherDesigner = await studio.signInAs('designer', 'second-designer')
  reviewer = await studio.signInAs('reviewer')
})
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

const VOICE = defaultVoiceFor(SECOND_GEN_MODEL)
const LINE = 'ln_000001'
const OTHER_LINE = 'ln_000002'

const scriptDoc = () => ({
  title: 'Takes',
  settings: { model: SECOND_GEN_MODEL, voice: VOICE },
  lines: [
    { id: LINE, text: 'First line.' },
    { id: OTHER_LINE, text: 'Second line.' },
  ],
})

async function newScript(as: BrowserHeaders): Promise<string> {
  const res = await fetch(`${studio.base}/api/scripts`, {
    method: 'POST',
    headers: { ...as, 'content-type': 'application/json' },
    body: JSON.stringify(scriptDoc()),
  })
  expect(res.status).toBe(201)
  return savedScriptSchema.parse(await res.json()).id
}

const takeOf = (extra: Record<string, unknown> = {}) => ({
  line_id: LINE,
  text: 'First line.',
  settings: { model: SECOND_GEN_MODEL, voice: VOICE, stream_format: 'sse', temperature: 0.9 },
  status: 'complete',
  time_to_first_audio_ms: 412,
  ...extra,
})

/** `samples` of PCM16 counting up from `from`, as little-endian bytes. */
function pcmBytes(samples: number, from = 1): Buffer {
  const b = Buffer.alloc(samples * 2)
  for (let i = 0; i < samples; i++) b.writeInt16LE((from + i) % 30_000, i * 2)
  return b
}

function form(take: unknown, audio?: Buffer | string, type = 'audio/pcm'): FormData {
  const f = new FormData()
  if (take !== undefined) f.append('take', typeof take === 'string' ? take : JSON.stringify(take))
  if (audio !== undefined)
    f.append(
      'audio',
      new Blob([typeof audio === 'string' ? audio : new Uint8Array(audio)], { type }),
      'take.pcm',
    )
  return f
}

function call(as: Partial<BrowserHeaders>, method: string, path: string, body?: unknown) {
  const init: RequestInit = { method, headers: { ...as } }
  if (body instanceof FormData) init.body = body
  else if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body)
    init.headers = { ...as, 'content-type': 'application/json' }
  }
  return fetch(`${studio.base}/api${path}`, init)
}

async function upload(as: BrowserHeaders, scriptId: string, take = takeOf(), audio = pcmBytes(2400)) {
  const res = await call(as, 'POST', `/scripts/${scriptId}/takes`, form(take, audio))
  expect(res.status).toBe(201)
  return takeCreatedSchema.parse(await res.json())
}

async function listOf(as: BrowserHeaders, scriptId: string): Promise<StoredTake[]> {
  const res = await call(as, 'GET', `/scripts/${scriptId}/takes`)
  expect(res.status).toBe(200)
  return takeListSchema.parse(await res.json()).data
}

async function expectRefused(res: Response, status: number, param?: string | null) {
  expect(res.status).toBe(status)
  const error = await studioRefusal(res)
  if (param !== undefined) expect(error.param).toBe(param)
}

describe('a designer’s takes', () => {
  it('round-trips: upload, list, fetch the audio as WAV, rename, star, delete', async () => {
    const scriptId = await newScript(designer)
    const before = Date.now()
    const audio = pcmBytes(24_000, 7)
    const { take, dropped } = await upload(designer, scriptId, takeOf(), audio)
    expect(dropped).toEqual([])
    expect(take).toMatchObject({
      script_id: scriptId,
      line_id: LINE,
      text: 'First line.',
      status: 'complete',
      starred: false,
      final: false,
      reference: false,
      name: null,
      samples: 24_000,
      time_to_first_audio_ms: 412,
      settings: { model: SECOND_GEN_MODEL, voice: VOICE, stream_format: 'sse', temperature: 0.9 },
    })
    expect(take.id).toMatch(/^tk_[0-9a-f]{32}$/)
    expect(take.created_at).toBeGreaterThanOrEqual(before)
    expect(await listOf(designer, scriptId)).toStrictEqual([take])

    const wav = await call(designer, 'GET', `/takes/${take.id}/audio`)
    expect(wav.status).toBe(200)
    expect(wav.headers.get('content-type')).toBe('audio/wav')
    expect(wav.headers.get('cache-control')).toBe('no-store')
    const bytes = Buffer.from(await wav.arrayBuffer())
    expect(bytes.subarray(0, 44)).toEqual(pcm16WavHeader(24_000, audio.length))
    expect(bytes.subarray(44).equals(audio)).toBe(true)

    const renamed = await call(designer, 'PATCH', `/takes/${take.id}`, { name: '  Warm read  ' })
    expect(renamed.status).toBe(200)
    expect(storedTakeSchema.parse(await renamed.json())).toMatchObject({ name: 'Warm read', starred: false })
    const starred = await call(designer, 'PATCH', `/takes/${take.id}`, { starred: true })
    expect(await starred.json()).toMatchObject({ starred: true, name: 'Warm read' })
    const cleared = await call(designer, 'PATCH', `/takes/${take.id}`, { name: null, starred: false })
    expect(await cleared.json()).toMatchObject({ starred: false, name: null })

    expect((await call(designer, 'DELETE', `/takes/${take.id}`)).status).toBe(204)
    expect(await listOf(designer, scriptId)).toEqual([])
    await expectRefused(await call(designer, 'GET', `/takes/${take.id}/audio`), 404)
    await expectRefused(await call(designer, 'DELETE', `/takes/${take.id}`), 404)
    await expectRefused(await call(designer, 'PATCH', `/takes/${take.id}`, { starred: true }), 404)
  })

  it('accepts the audio as a WAV file of 24 kHz mono PCM16, streaming header included', async () => {
    const scriptId = await newScript(designer)
    const audio = pcmBytes(4800)
    for (const header of [pcm16WavHeader(24_000, audio.length), pcm16WavHeader(24_000)]) {
      const res = await call(
        designer,
        'POST',
        `/scripts/${scriptId}/takes`,
        form(takeOf(), Buffer.concat([header, audio]), 'audio/wav'),
      )
      expect(res.status).toBe(201)
      const { take } = takeCreatedSchema.parse(await res.json())
      expect(take.samples).toBe(4800)
      const stored = Buffer.from(await (await call(designer, 'GET', `/takes/${take.id}/audio`)).arrayBuffer())
      expect(stored.subarray(44).equals(audio)).toBe(true)
    }
  })

  it('keeps one starred take per line; only complete takes can be starred', async () => {
    const scriptId = await newScript(designer)
    const a = (await upload(designer, scriptId)).take
    const b = (await upload(designer, scriptId)).take
    const other = (await upload(designer, scriptId, takeOf({ line_id: OTHER_LINE }))).take
    const broken = (await upload(designer, scriptId, takeOf({ status: 'incomplete' }))).take
    for (const id of [a.id, other.id, b.id])
      expect((await call(designer, 'PATCH', `/takes/${id}`, { starred: true })).status).toBe(200)
    const starred = async () => (await listOf(designer, scriptId)).filter((t) => t.starred).map((t) => t.id)
    expect(await starred()).toEqual([b.id, other.id])
    await expectRefused(
      await call(designer, 'PATCH', `/takes/${broken.id}`, { starred: true }),
      409,
      'starred',
    )
    expect(await starred()).toEqual([b.id, other.id])
    // Many stars of one line at once: exactly one is starred afterwards.
    await Promise.all(
      [a.id, b.id, a.id, b.id].map((id) => call(designer, 'PATCH', `/takes/${id}`, { starred: true })),
    )
    expect((await listOf(designer, scriptId)).filter((t) => t.starred && t.line_id === LINE)).toHaveLength(1)
  })

  it('keeps each designer’s takes to themselves (404, never 403)', async () => {
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId)
    await expectRefused(await call(otherDesigner, 'GET', `/scripts/${scriptId}/takes`), 404)
    await expectRefused(await call(otherDesigner, 'GET', `/takes/${take.id}/audio`), 404)
    await expectRefused(await call(otherDesigner, 'PATCH', `/takes/${take.id}`, { name: 'Mine now' }), 404)
    await expectRefused(await call(otherDesigner, 'PATCH', `/takes/${take.id}`, { starred: true }), 404)
    await expectRefused(await call(otherDesigner, 'DELETE', `/takes/${take.id}`), 404)
    // Nor can a take be added to another's script.
    await expectRefused(
      await call(otherDesigner, 'POST', `/scripts/${scriptId}/takes`, form(takeOf(), pcmBytes(10))),
      404,
    )
    expect(await listOf(designer, scriptId)).toStrictEqual([take])
  })

  it('is for designers and admins only; signed out is 401; state changes need the CSRF token', async () => {
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId)
    await expectRefused(await call(reviewer, 'GET', `/scripts/${scriptId}/takes`), 403)
    await expectRefused(await call(reviewer, 'GET', `/takes/${take.id}/audio`), 403)
    await expectRefused(await call({}, 'GET', `/takes/${take.id}/audio`), 401)
    const noCsrf = { cookie: designer.cookie }
    await expectRefused(
      await call(noCsrf, 'POST', `/scripts/${scriptId}/takes`, form(takeOf(), pcmBytes(10))),
      403,
    )
    await expectRefused(await call(noCsrf, 'PATCH', `/takes/${take.id}`, { starred: true }), 403)
    await expectRefused(await call(noCsrf, 'DELETE', `/takes/${take.id}`), 403)
    expect(await listOf(designer, scriptId)).toStrictEqual([take])
  })

  it('deletes a script’s takes with the script', async () => {
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId)
    expect((await call(designer, 'DELETE', `/scripts/${scriptId}`)).status).toBe(204)
    await expectRefused(await call(designer, 'GET', `/takes/${take.id}/audio`), 404)
    await expectRefused(await call(designer, 'GET', `/scripts/${scriptId}/takes`), 404)
  })
})

describe('hostile input', () => {
  it('refuses wrong types and unknown fields, naming the field', async () => {
    const scriptId = await newScript(designer)
    const post = (take: unknown, audio: Buffer | null = pcmBytes(10)) =>
      call(designer, 'POST', `/scripts/${scriptId}/takes`, form(take, audio ?? undefined))
    await expectRefused(await post(takeOf({ status: 'done' })), 400, 'take.status')
    await expectRefused(await post(takeOf({ line_id: 42 })), 400, 'take.line_id')
    await expectRefused(await post(takeOf({ line_id: '../../etc' })), 400, 'take.line_id')
    await expectRefused(await post(takeOf({ text: '' })), 400, 'take.text')
    await expectRefused(
      await post(takeOf({ time_to_first_audio_ms: -1 })),
      400,
      'take.time_to_first_audio_ms',
    )
    await expectRefused(await post(takeOf({ starred: true })), 400, 'take.starred')
    await expectRefused(await post(takeOf({ settings: { model: 'nope' } })), 400, 'take.settings.model')
    // A reference clip is never kept: an inline reference voice is refused.
    const inline = { reference_audio: { data: 'AAAA', format: 'wav' } }
    await expectRefused(await post(takeOf({ settings: { voice: inline } })), 400, 'take.settings.voice')
    await expectRefused(await post('{"line_id": '), 400, 'take')
    await expectRefused(await post([1, 2]), 400, 'take')
    await expectRefused(await post(undefined), 400, 'take')
    await expectRefused(await post(takeOf(), null), 400, 'audio')
    await expectRefused(await post(takeOf(), Buffer.alloc(0)), 400, 'audio')
    await expectRefused(await post(takeOf(), Buffer.alloc(3)), 400, 'audio')
    const cd = Buffer.concat([pcm16WavHeader(44_100, 20), pcmBytes(10)])
    cd.writeUInt32LE(44_100, 24)
    await expectRefused(await post(takeOf(), cd), 400, 'audio')
    const short = Buffer.concat([pcm16WavHeader(24_000, 2000), pcmBytes(10)])
    await expectRefused(await post(takeOf(), short), 400, 'audio')
    await expectRefused(
      await call(designer, 'POST', `/scripts/${scriptId}/takes`, JSON.stringify(takeOf())),
      415,
    )
    expect(await listOf(designer, scriptId)).toEqual([])
  })

  it('refuses audio over the limit with 413 and a body cut short with 400', async () => {
    const scriptId = await newScript(designer)
    const at = `/scripts/${scriptId}/takes`
    // Exactly the limit is a take; one more sample is not.
    const full = await call(designer, 'POST', at, form(takeOf(), Buffer.alloc(MAX_TAKE_AUDIO_BYTES)))
    expect(full.status).toBe(201)
    await expectRefused(
      await call(designer, 'POST', at, form(takeOf(), Buffer.alloc(MAX_TAKE_AUDIO_BYTES + 46))),
      413,
    )

    const boundary = 'cutshort'
    const truncated = [
      `--${boundary}\r\nContent-Disposition: form-data; name="take"\r\n\r\n${JSON.stringify(takeOf())}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.pcm"\r\n`,
      'Content-Type: audio/pcm\r\n\r\n\u0001\u0002\u0003\u0004',
    ].join('')
    const res = await fetch(`${studio.base}/api${at}`, {
      method: 'POST',
      headers: { ...designer, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: truncated,
    })
    await expectRefused(res, 400)
    expect((await listOf(designer, scriptId)).map((t) => t.samples)).toEqual([MAX_TAKE_AUDIO_BYTES / 2])
  })

  it('refuses malformed updates and ids that are not takes', async () => {
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId)
    const patch = (body: unknown) => call(designer, 'PATCH', `/takes/${take.id}`, body)
    await expectRefused(await patch({}), 400)
    await expectRefused(await patch({ starred: 'yes' }), 400, 'starred')
    await expectRefused(await patch({ name: 'x'.repeat(101) }), 400, 'name')
    await expectRefused(await patch({ name: '   ' }), 400, 'name')
    await expectRefused(await patch({ name: 'ok', owner: 'someone-else' }), 400, 'owner')
    await expectRefused(await patch('{"name": '), 400)
    for (const id of ['nope', `tk_${'0'.repeat(32)}`, '..%2F..%2Fstudio.db'])
      await expectRefused(await call(designer, 'GET', `/takes/${id}/audio`), 404)
    await expectRefused(await call(designer, 'GET', `/scripts/scr_${'0'.repeat(32)}/takes`), 404)
    expect(await listOf(designer, scriptId)).toStrictEqual([take])
  })
})

describe('caps', () => {
  it(`keeps at most ${MAX_TAKES_PER_USER} takes per user, dropping the oldest unstarred and saying which`, async () => {
    const owner = await studio.signInAs('designer', 'prolific-designer')
    const scriptId = await newScript(owner)
    const first = (await upload(owner, scriptId, takeOf(), pcmBytes(2))).take
    expect((await call(owner, 'PATCH', `/takes/${first.id}`, { starred: true })).status).toBe(200)
    const second = (await upload(owner, scriptId, takeOf(), pcmBytes(2))).take
    for (let i = 2; i < MAX_TAKES_PER_USER; i++) {
      const { dropped } = await upload(owner, scriptId, takeOf(), pcmBytes(2))
      expect(dropped).toEqual([])
    }
    const over = await upload(owner, scriptId, takeOf(), pcmBytes(2))
    expect(over.dropped).toEqual([{ id: second.id, script_id: scriptId, line_id: LINE }])
    const ids = (await listOf(owner, scriptId)).map((t) => t.id)
    expect(ids).toHaveLength(MAX_TAKES_PER_USER)
    expect(ids).toContain(first.id)
    expect(ids).not.toContain(second.id)
  })
})

describe(`the store on ${TEST_BACKEND}`, () => {
  it('drops by bytes across scripts, keeps starred ones, and refuses when starred takes fill it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'takes-store-'))
    const database = testDatabase()
    const db = await database.open(dir)
    try {
      const scripts = new ScriptStore(db)
      const doc = scriptDocumentSchema.parse(scriptDoc())
      const [s1, s2] = [await scripts.create('ana', doc), await scripts.create('ana', doc)]
      const store = await TakeStore.open(db, studioSealerOf({ dataDir: dir }), {
        maxTakes: 10,
        maxBytes: 100,
      })
      const put = (scriptId: string, bytes: number, at: number, line = LINE) =>
        store.create('ana', scriptId, takeOf({ line_id: line }) as NewTake, Buffer.alloc(bytes), at)
      const created = async (p: ReturnType<typeof put>) => {
        const outcome = await p
        if (!outcome || outcome === 'full') throw new Error(`not created: ${outcome}`)
        return outcome
      }
      const a = await created(put(s1.id, 40, 1))
      const b = await created(put(s2.id, 40, 2, OTHER_LINE))
      expect(await store.update('ana', b.take.id, { starred: true })).toMatchObject({ starred: true })
      const c = await created(put(s1.id, 40, 3))
      expect(c.dropped).toEqual([{ id: a.take.id, script_id: s1.id, line_id: LINE }])
      // 80 starred-or-new bytes plus 40 is over 100 only after dropping c: c goes, the new one stays.
      const d = await created(put(s2.id, 60, 4))
      expect(d.dropped.map((x) => x.id)).toEqual([c.take.id])
      expect(await store.update('ana', d.take.id, { starred: true })).toMatchObject({ starred: true })
      // Starred b (40) and d (60) fill it: a new take is refused and nothing changes.
      expect(await put(s1.id, 2, 5)).toBe('full')
      expect((await store.list('ana', s2.id))?.map((t) => t.id)).toEqual([b.take.id, d.take.id])
      expect(await store.list('bea', s2.id)).toBeUndefined()
      expect(await store.create('bea', s1.id, takeOf() as NewTake, Buffer.alloc(2))).toBeUndefined()
    } finally {
      await db.close()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('lineage: a take made with a saved voice loses its audio when the voice or its consent goes', () => {
  let recordings: VoiceRecordings
  let admin: BrowserHeaders
  let viaStudio: VoiceTarget
  let atService: VoiceTarget
  beforeAll(async () => {
    recordings = await voiceRecordings()
    admin = await studio.signInAs('consent_admin', 'cora')
    viaStudio = { base: `${studio.base}/api/v1`, headers: { ...admin } }
    atService = { base: `${svc.baseUrl}/v1`, headers: { authorization: `Bearer ${svc.apiKey}` } }
  }, 120_000)
  afterAll(() => recordings?.close())

  const withVoice = (voice: string, extra: Record<string, unknown> = {}) =>
    takeOf({ settings: { model: SECOND_GEN_MODEL, voice: { id: voice }, stream_format: 'sse' }, ...extra })
  const erasable = async (query: string, as: BrowserHeaders = admin) => {
    const res = await call(as, 'GET', `/takes/erasable?${query}`)
    expect(res.status).toBe(200)
    return erasableTakesSchema.parse(await res.json())
  }
  const erasures = async () => {
    const res = await call(admin, 'GET', '/audit/erasures')
    expect(res.status).toBe(200)
    return takeErasuresSchema.parse(await res.json()).data
  }

  it('revoking the consent through the studio erases every take of its voices: 410, the rows kept, the counts audited', async () => {
    const { consent, voice } = await createSavedVoice(viaStudio, recordings, 'Rev')
    const scriptId = await newScript(designer)
    const otherScript = await newScript(otherDesigner)
    const mine = [
      await upload(designer, scriptId, withVoice(voice)),
      await upload(designer, scriptId, withVoice(voice)),
    ]
    const theirs = await upload(otherDesigner, otherScript, withVoice(voice))
    const builtIn = await upload(designer, scriptId)
    expect((await call(designer, 'PATCH', `/takes/${mine[0]?.take.id}`, { starred: true })).status).toBe(200)

    // Before: what the voices page shows; designers may not ask.
    expect(await erasable(`consent=${consent}`)).toEqual({ takes: 3, users: 2 })
    expect(await erasable(`voice=${voice}`)).toEqual({ takes: 3, users: 2 })
    await expectRefused(await call(designer, 'GET', `/takes/erasable?consent=${consent}`), 403)
    await expectRefused(await call(admin, 'GET', '/takes/erasable'), 400)

    const before = Date.now()
    expect((await remove(viaStudio, `/audio/voice_consents/${consent}`)).status).toBe(200)

    for (const t of mine) {
      const res = await call(designer, 'GET', `/takes/${t.take.id}/audio`)
      expect(res.status).toBe(410)
      const error = await studioRefusal(res)
      expect(error.code).toBe('audio_erased')
      expect(error.message).toContain(new Date().toISOString().slice(0, 10))
    }
    expect((await call(otherDesigner, 'GET', `/takes/${theirs.take.id}/audio`)).status).toBe(410)
    expect((await call(designer, 'GET', `/takes/${builtIn.take.id}/audio`)).status).toBe(200)
    const listed = await listOf(designer, scriptId)
    const erased = listed.filter((t) => t.erased)
    expect(erased.map((t) => t.id).sort()).toEqual(mine.map((t) => t.take.id).sort())
    for (const t of erased) {
      expect(t.erased?.reason).toBe('consent_revoked')
      expect(t.erased?.at).toBeGreaterThanOrEqual(before)
      expect(t.starred).toBe(false)
      expect(t.text).toBe('First line.')
    }
    // An erased take cannot be chosen again.
    await expectRefused(await call(designer, 'PATCH', `/takes/${mine[1]?.take.id}`, { starred: true }), 409)
    // The audio itself is gone from the database, not only refused.
    const left = await studio.db.db
      .selectFrom('take_audio')
      .select('take_id')
      .where(
        'take_id',
        'in',
        [...mine, theirs].map((t) => t.take.id),
      )
      .execute()
    expect(left).toEqual([])

    const trail = (await erasures()).filter((e) => e.voice_id === voice)
    expect(trail.map((e) => [e.owner, e.takes, e.reason, e.by, e.consent_id]).sort()).toEqual(
      [
        ['designer-user', 2, 'consent_revoked', 'cora', consent],
        ['second-designer', 1, 'consent_revoked', 'cora', consent],
      ].sort(),
    )
    expect(await erasable(`consent=${consent}`)).toEqual({ takes: 0, users: 0 })
  }, 120_000)

  it('deleting a voice through the studio erases its takes only', async () => {
    const { consent, voice } = await createSavedVoice(viaStudio, recordings, 'Del')
    const second = await createVoiceOf(viaStudio, recordings, consent, 'Del second')
    const scriptId = await newScript(designer)
    const gone = await upload(designer, scriptId, withVoice(voice))
    const kept = await upload(designer, scriptId, withVoice(second))
    expect(await erasable(`consent=${consent}`)).toEqual({ takes: 2, users: 1 })
    expect((await remove(viaStudio, `/audio/voices/${voice}`)).status).toBe(200)
    expect((await call(designer, 'GET', `/takes/${gone.take.id}/audio`)).status).toBe(410)
    expect((await call(designer, 'GET', `/takes/${kept.take.id}/audio`)).status).toBe(200)
    const [take] = (await listOf(designer, scriptId)).filter((t) => t.id === gone.take.id)
    expect(take?.erased?.reason).toBe('voice_deleted')
    expect((await erasures()).find((e) => e.voice_id === voice)).toMatchObject({
      owner: 'designer-user',
      takes: 1,
      by: 'cora',
    })
  }, 120_000)

  it('a consent revoked at the service directly: the first request for a take’s audio erases it', async () => {
    const { consent, voice } = await createSavedVoice(atService, recordings, 'Direct')
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId, withVoice(voice))
    expect((await call(designer, 'GET', `/takes/${take.id}/audio`)).status).toBe(200)
    expect((await remove(atService, `/audio/voice_consents/${consent}`)).status).toBe(200)
    // Past the catalog answer the page's audio fetches share (which still listed the voice).
    await new Promise((r) => setTimeout(r, 2_100))
    const res = await call(designer, 'GET', `/takes/${take.id}/audio`)
    expect(res.status).toBe(410)
    expect((await studioRefusal(res)).code).toBe('audio_erased')
    const [listed] = await listOf(designer, scriptId)
    // The consent was learned from the service's catalog when the take was stored, so the reason is known.
    expect(listed?.erased?.reason).toBe('consent_revoked')
    expect((await erasures()).find((e) => e.voice_id === voice)).toMatchObject({ takes: 1, by: null })
  }, 120_000)

  it('a voice deleted at the service directly: speech with it through the studio (404) erases its takes', async () => {
    const { voice } = await createSavedVoice(atService, recordings, 'Speak')
    const scriptId = await newScript(designer)
    await upload(designer, scriptId, withVoice(voice))
    expect((await remove(atService, `/audio/voices/${voice}`)).status).toBe(200)
    const speech = await fetch(`${studio.base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { ...designer, 'content-type': 'application/json' },
      body: JSON.stringify({ model: SECOND_GEN_MODEL, input: 'Still there?', voice: { id: voice } }),
    })
    expect(speech.status).toBe(404)
    await speech.arrayBuffer()
    const start = Date.now()
    let listed: StoredTake | undefined
    // Only the list, which never asks the service: the 404 alone made the studio check.
    while (Date.now() - start < 3_000 && !listed?.erased) {
      ;[listed] = await listOf(designer, scriptId)
      if (!listed?.erased) await new Promise((r) => setTimeout(r, 50))
    }
    expect(listed?.erased?.reason).toBe('voice_gone')
  }, 120_000)

  it('a consent revoked at the service directly: the periodic check erases within its interval', async () => {
    const quick = await startStudio(svc, { share: studio, voiceCheckIntervalMs: 300 })
    try {
      const { consent, voice } = await createSavedVoice(atService, recordings, 'Sweep')
      const scriptId = await newScript(designer)
      const { take } = await upload(designer, scriptId, withVoice(voice))
      expect((await remove(atService, `/audio/voice_consents/${consent}`)).status).toBe(200)
      const revokedAt = Date.now()
      let erasedAt: number | undefined
      while (Date.now() - revokedAt < 5_000) {
        // The list reads rows only: it never asks the service, so only the check can have erased it.
        const [listed] = await listOf(designer, scriptId)
        if (listed?.erased) {
          erasedAt = Date.now()
          expect(listed.erased.reason).toBe('consent_revoked')
          break
        }
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(erasedAt).toBeDefined()
      expect((erasedAt ?? 0) - revokedAt).toBeLessThan(2_000)
      expect((await call(designer, 'GET', `/takes/${take.id}/audio`)).status).toBe(410)
    } finally {
      await quick.close()
    }
  }, 120_000)

  it('a voice made after the studio last read the catalog is never taken for a revoked one', async () => {
    const scriptId = await newScript(designer)
    const { consent, voice } = await createSavedVoice(atService, recordings, 'Fresh')
    // This take's storing reads the catalog; the next voice is made within the time that answer is reused.
    await upload(designer, scriptId, withVoice(voice))
    const newer = await createVoiceOf(atService, recordings, consent, 'Fresh second')
    const { take } = await upload(designer, scriptId, withVoice(newer))
    expect(take.erased).toBeNull()
    expect((await call(designer, 'GET', `/takes/${take.id}/audio`)).status).toBe(200)
  }, 120_000)

  it('a take stored after its voice went at the service is kept as the record, already erased', async () => {
    const { voice } = await createSavedVoice(atService, recordings, 'Late')
    expect((await remove(atService, `/audio/voices/${voice}`)).status).toBe(200)
    const scriptId = await newScript(designer)
    const { take } = await upload(designer, scriptId, withVoice(voice))
    expect(take.erased?.reason).toBe('voice_gone')
    expect((await call(designer, 'GET', `/takes/${take.id}/audio`)).status).toBe(410)
  }, 120_000)
})

describe('migration 0008 (lineage) on a studio database with takes', () => {
  it('links existing takes to their saved voice and, from the audit trail, its consent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'takes-lineage-'))
    const database = testDatabase(TEST_BACKEND)
    const before = Object.fromEntries(Object.entries(STUDIO_MIGRATIONS).filter(([name]) => name < '0008'))
    try {
      const old = await openStorage<StudioTables>({
        dataDir: dir,
        file: 'studio.db',
        databaseUrl: database.env.DATABASE_URL || undefined,
        schema: database.env.STUDIO_DATABASE_SCHEMA || 'studio',
        migrations: before,
      })
      const row = (id: string, voice: unknown) => ({
        id,
        settings: JSON.stringify({ model: SECOND_GEN_MODEL, ...(voice === undefined ? {} : { voice }) }),
      })
      await sql`INSERT INTO scripts (id, owner, title, document, characters, lines, revision, created_at, updated_at)
        VALUES ('sc_1', 'ana', 't', '{}', 1, 1, 1, 1, 1)`.execute(old.db)
      for (const r of [
        row('tk_saved', { id: 'voice_abc' }),
        row('tk_unknown', { id: 'voice_def' }),
        row('tk_builtin', VOICE),
        row('tk_none', undefined),
      ])
        await sql`INSERT INTO takes (id, owner, script_id, line_id, text, settings, reference, status, final, starred,
          name, time_to_first_audio_ms, samples, bytes, created_at) VALUES (${r.id}, 'ana', 'sc_1', ${LINE}, 'Hi.',
          ${r.settings}, 0, 'complete', 0, 0, NULL, NULL, 1, 2, 1)`.execute(old.db)
      await sql`INSERT INTO audit_events (at, user_name, user_role, kind, action, upstream_id, name, consent_id)
        VALUES (1, 'cora', 'consent_admin', 'voice', 'created', 'voice_abc', 'Ada', 'cons_abc')`.execute(
        old.db,
      )
      await old.close()

      const db = await database.open(dir)
      try {
        const rows = await db.db
          .selectFrom('takes')
          .select(['id', 'voice_id', 'consent_id', 'erased_at'])
          .orderBy('id')
          .execute()
        expect(rows).toEqual([
          { id: 'tk_builtin', voice_id: null, consent_id: null, erased_at: null },
          { id: 'tk_none', voice_id: null, consent_id: null, erased_at: null },
          { id: 'tk_saved', voice_id: 'voice_abc', consent_id: 'cons_abc', erased_at: null },
          { id: 'tk_unknown', voice_id: 'voice_def', consent_id: null, erased_at: null },
        ])
      } finally {
        await db.close()
      }
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('each take’s loudness (BS.1770), measured as it is stored', () => {
  /** A 997 Hz sine of `amplitude` (of full scale) as PCM16 bytes: its loudness is known, −3.01 LUFS at full scale. */
  const sineBytes = (amplitude: number, seconds: number) => {
    const b = Buffer.alloc(24_000 * seconds * 2)
    for (let i = 0; i < b.length / 2; i++)
      b.writeInt16LE(Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 997 * i) / 24_000)), i * 2)
    return b
  }

  it('is measured from the audio, listed with the take, and null when it cannot be measured', async () => {
    const scriptId = await newScript(designer)
    const loud = (await upload(designer, scriptId, takeOf(), sineBytes(0.5, 2))).take
    const quiet = (await upload(designer, scriptId, takeOf(), sineBytes(0.05, 2))).take
    // 0.5 of full scale is 6.02 dB under −3.01; a tenth of that 20 dB further.
    expect(Math.abs((loud.loudness_lufs ?? 0) + 9.03)).toBeLessThan(0.1)
    expect(Math.abs((quiet.loudness_lufs ?? 0) + 29.03)).toBeLessThan(0.1)
    const silent = (await upload(designer, scriptId, takeOf(), Buffer.alloc(48_000))).take
    const short = (await upload(designer, scriptId, takeOf(), sineBytes(0.5, 0.25))).take
    expect([silent.loudness_lufs, short.loudness_lufs]).toEqual([null, null])
    const listed = new Map((await listOf(designer, scriptId)).map((t) => [t.id, t.loudness_lufs]))
    expect(listed.get(loud.id)).toBe(loud.loudness_lufs)
    expect(listed.get(quiet.id)).toBe(quiet.loudness_lufs)
    expect(listed.get(silent.id)).toBeNull()
  })

  it('migration 0010 keeps older takes, their loudness unknown (null)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'takes-loudness-'))
    const database = testDatabase(TEST_BACKEND)
    const before = Object.fromEntries(Object.entries(STUDIO_MIGRATIONS).filter(([name]) => name < '0010'))
    try {
      const old = await openStorage<StudioTables>({
        dataDir: dir,
        file: 'studio.db',
        databaseUrl: database.env.DATABASE_URL || undefined,
        schema: database.env.STUDIO_DATABASE_SCHEMA || 'studio',
        migrations: before,
      })
      await sql`INSERT INTO scripts (id, owner, title, document, characters, lines, revision, created_at, updated_at)
        VALUES ('sc_1', 'ana', 't', '{}', 1, 1, 1, 1, 1)`.execute(old.db)
      await sql`INSERT INTO takes (id, owner, script_id, line_id, text, settings, reference, status, final, starred,
        name, time_to_first_audio_ms, samples, bytes, created_at) VALUES ('tk_old', 'ana', 'sc_1', ${LINE}, 'Hi.',
        '{}', 0, 'complete', 0, 0, NULL, NULL, 1, 2, 1)`.execute(old.db)
      await old.close()

      const db = await database.open(dir)
      try {
        const rows = await db.db.selectFrom('takes').select(['id', 'loudness_lufs']).execute()
        expect(rows).toEqual([{ id: 'tk_old', loudness_lufs: null }])
        await db.db.updateTable('takes').set({ loudness_lufs: -19.25 }).execute()
        const after = await db.db.selectFrom('takes').select('loudness_lufs').executeTakeFirstOrThrow()
        // A real number on both databases (PostgreSQL's double precision, SQLite's real), not a string.
        expect(after.loudness_lufs).toBe(-19.25)
      } finally {
        await db.close()
      }
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
