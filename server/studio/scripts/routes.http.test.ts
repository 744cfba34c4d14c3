import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  defaultVoiceFor,
  MAX_CAST_MEMBERS,
  MAX_CAST_NAME_CHARS,
  MAX_SCRIPT_CHARS,
  MAX_SCRIPT_LINES,
  MAX_SCRIPT_TITLE_CHARS,
  type SavedScript,
  SECOND_GEN_MODEL,
  savedScriptSchema,
  scriptDocumentSchema,
  scriptListSchema,
} from '../../../schema/index.ts'
import { TEST_BACKEND } from '../../testing/backends.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import {
  type BrowserHeaders,
  type RunningStudio,
  startStudio,
  studioRefusal,
  testDatabase,
} from '../../testing/studio.ts'
import { MAX_SCRIPT_BODY_BYTES } from './routes.ts'
import { ScriptStore } from './store.ts'

/**
 * The studio's `/api/scripts` against the real backend (its own studio.db) in front of the real local service:
 * owner-scoped storage, revision-guarded saves, roles and CSRF, the contract's limits at their boundaries.
 */

let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders
let otherDesigner: BrowserHeaders
let reviewer: BrowserHeaders
let consentAdmin: BrowserHeaders
let admin: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
  otherDesigner = await studio.signInAs('designer', 'second-designer')
  reviewer = await studio.signInAs('reviewer')
  consentAdmin = await studio.signInAs('consent_admin')
  admin = await studio.signInAs('admin')
})
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

const VOICE = defaultVoiceFor(SECOND_GEN_MODEL)
const lineId = (n: number) => `ln_${n.toString(36).padStart(6, '0')}`

function doc(texts: string[] = ['First line.', 'Second line.'], extra: Record<string, unknown> = {}) {
  return {
    title: 'Chapter one',
    settings: { model: SECOND_GEN_MODEL, voice: VOICE },
    lines: texts.map((text, i) => ({ id: lineId(i), text })),
    ...extra,
  }
}

function call(as: Partial<BrowserHeaders>, method: string, path: string, body?: unknown) {
  const json = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  return fetch(`${studio.base}/api/scripts${path}`, {
    method,
    headers: { ...as, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json,
  })
}

async function create(as: BrowserHeaders, body: unknown = doc()): Promise<SavedScript> {
  const res = await call(as, 'POST', '', body)
  expect(res.status).toBe(201)
  return savedScriptSchema.parse(await res.json())
}

async function listOf(as: BrowserHeaders) {
  const res = await call(as, 'GET', '')
  expect(res.status).toBe(200)
  return scriptListSchema.parse(await res.json()).data
}

async function current(as: BrowserHeaders, id: string): Promise<unknown> {
  const res = await call(as, 'GET', `/${id}`)
  expect(res.status).toBe(200)
  return res.json()
}

async function expectRefused(res: Response, status: number, param?: string) {
  expect(res.status).toBe(status)
  const error = await studioRefusal(res)
  if (param !== undefined) {
    expect(error.param).toBe(param)
    expect(error.message).toContain(param)
  }
}

describe('a designer’s scripts', () => {
  it('round-trips: create, list, get, save with the next revision, delete', async () => {
    const before = Math.floor(Date.now() / 1000)
    const override = { voice: 'other-voice', temperature: 1.1, top_p: null }
    const created = await create(designer, {
      ...doc(['Hello there.', '<whisper>Quietly now.</whisper>']),
      title: '  Chapter one  ',
      settings: { model: SECOND_GEN_MODEL, voice: VOICE, mode: 'expressive', top_k: 40, min_p: null },
      lines: [
        { id: lineId(0), text: 'Hello there.' },
        { id: lineId(1), text: '<whisper>Quietly now.</whisper>', override },
      ],
    })
    expect(created.id).toMatch(/^scr_[0-9a-f]{32}$/)
    expect(created).toMatchObject({ title: 'Chapter one', revision: 1 })
    expect(created.created_at).toBeGreaterThanOrEqual(before)
    expect(created.created_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
    expect(created.updated_at).toBe(created.created_at)
    // Omitted (or null) decoding controls stay omitted: they mean "from the mode's preset".
    expect(created.settings).toStrictEqual({
      model: SECOND_GEN_MODEL,
      voice: VOICE,
      mode: 'expressive',
      top_k: 40,
    })
    expect(created.lines[1]?.override).toStrictEqual({ voice: 'other-voice', temperature: 1.1 })

    expect(await current(designer, created.id)).toStrictEqual(created)
    const summary = (await listOf(designer)).find((s) => s.id === created.id)
    expect(summary).toStrictEqual({
      id: created.id,
      title: 'Chapter one',
      characters: 'Hello there.'.length + 1 + '<whisper>Quietly now.</whisper>'.length,
      lines: 2,
      revision: 1,
      updated_at: created.updated_at,
    })

    const edited = doc(['Hello there.', 'A new second line.', 'And a third.'], {
      title: 'Chapter one, revised',
    })
    const put = await call(designer, 'PUT', `/${created.id}`, { script: edited, revision: 1 })
    expect(put.status).toBe(200)
    const saved = savedScriptSchema.parse(await put.json())
    expect(saved).toMatchObject({
      id: created.id,
      title: 'Chapter one, revised',
      revision: 2,
      created_at: created.created_at,
      lines: edited.lines,
    })
    expect(saved.updated_at).toBeGreaterThanOrEqual(created.updated_at)
    expect(await current(designer, created.id)).toStrictEqual(saved)
    expect((await listOf(designer)).find((s) => s.id === created.id)).toMatchObject({
      title: 'Chapter one, revised',
      lines: 3,
      revision: 2,
    })

    expect((await call(designer, 'DELETE', `/${created.id}`)).status).toBe(204)
    await expectRefused(await call(designer, 'GET', `/${created.id}`), 404)
    await expectRefused(await call(designer, 'DELETE', `/${created.id}`), 404)
    await expectRefused(await call(designer, 'PUT', `/${created.id}`, { script: edited, revision: 2 }), 404)
    expect((await listOf(designer)).some((s) => s.id === created.id)).toBe(false)
  })

  it('refuses a save on a stale revision with the script as saved now, changing nothing', async () => {
    const { id } = await create(designer)
    const first = await call(designer, 'PUT', `/${id}`, { script: doc(['From browser A.']), revision: 1 })
    expect(first.status).toBe(200)
    const savedByA = await first.json()

    const stale = await call(designer, 'PUT', `/${id}`, { script: doc(['From browser B.']), revision: 1 })
    expect(stale.status).toBe(409)
    const body = (await stale.json()) as {
      error: { message: string; param: string; code: string }
      script: unknown
    }
    expect(body.error.message).toMatch(/saved elsewhere/)
    expect(body.error.param).toBe('revision')
    expect(body.error.code).toBe('conflict')
    expect(body.script).toStrictEqual(savedByA)
    expect(await current(designer, id)).toStrictEqual(savedByA)
    // A revision from the future is just as stale.
    expect((await call(designer, 'PUT', `/${id}`, { script: doc(['B']), revision: 9 })).status).toBe(409)
  })

  it('lets exactly one of two simultaneous saves on the same revision through', async () => {
    const { id } = await create(designer)
    const results = await Promise.all(
      ['Browser A', 'Browser B'].map((text) =>
        call(designer, 'PUT', `/${id}`, { script: doc([text]), revision: 1 }),
      ),
    )
    expect(results.map((r) => r.status).sort()).toEqual([200, 409])
    const winner = await results.find((r) => r.status === 200)?.json()
    expect(winner).toMatchObject({ revision: 2 })
    expect(await current(designer, id)).toStrictEqual(winner)
  })

  it('keeps each designer’s scripts to themselves (404, never 403)', async () => {
    const mine = await create(designer, doc(['Mine alone.']))
    await expectRefused(await call(otherDesigner, 'GET', `/${mine.id}`), 404)
    await expectRefused(
      await call(otherDesigner, 'PUT', `/${mine.id}`, { script: doc(['Taken over.']), revision: 1 }),
      404,
    )
    await expectRefused(await call(otherDesigner, 'DELETE', `/${mine.id}`), 404)
    expect((await listOf(otherDesigner)).some((s) => s.id === mine.id)).toBe(false)
    // Admins keep their own scripts; a designer's stay invisible to them too.
    await expectRefused(await call(admin, 'GET', `/${mine.id}`), 404)
    const theirs = await create(admin, doc(['An admin’s own.']))
    expect((await listOf(admin)).map((s) => s.id)).toEqual([theirs.id])
    expect((await listOf(designer)).some((s) => s.id === theirs.id)).toBe(false)
    expect(await current(designer, mine.id)).toStrictEqual(mine)
  })

  it('is for designers and admins only; signed out is 401; state changes need the CSRF token', async () => {
    const { id } = await create(designer)
    for (const other of [reviewer, consentAdmin]) {
      await expectRefused(await call(other, 'GET', ''), 403)
      await expectRefused(await call(other, 'POST', '', doc()), 403)
      await expectRefused(await call(other, 'GET', `/${id}`), 403)
    }
    await expectRefused(await call({}, 'GET', ''), 401)
    await expectRefused(await call({}, 'GET', `/${id}`), 401)

    const count = (await listOf(designer)).length
    const noCsrf = { cookie: designer.cookie }
    const forged = { ...designer, 'x-csrf-token': 'forged' }
    await expectRefused(await call(noCsrf, 'POST', '', doc()), 403)
    await expectRefused(await call(forged, 'POST', '', doc()), 403)
    await expectRefused(await call(noCsrf, 'PUT', `/${id}`, { script: doc(['Forged.']), revision: 1 }), 403)
    await expectRefused(await call(noCsrf, 'DELETE', `/${id}`), 403)
    await expectRefused(await call({}, 'POST', '', doc()), 403)
    expect((await listOf(designer)).length).toBe(count)
    expect(await current(designer, id)).toMatchObject({ revision: 1, lines: doc().lines })
  })

  it('answers 404 for ids that are not scripts', async () => {
    for (const id of ['nope', `scr_${'0'.repeat(32)}`, 'scr_..%2F..%2Fstudio.db']) {
      await expectRefused(await call(designer, 'GET', `/${id}`), 404)
      await expectRefused(await call(designer, 'PUT', `/${id}`, { script: doc(), revision: 1 }), 404)
      await expectRefused(await call(designer, 'DELETE', `/${id}`), 404)
    }
  })
})

describe('validation at the limits', () => {
  /** Lines of 'a' whose joined length (with the line breaks) is exactly `total`. */
  function textsOf(total: number, lines: number): string[] {
    const letters = total - (lines - 1)
    const each = Math.floor(letters / lines)
    return Array.from({ length: lines }, (_, i) => 'a'.repeat(i === 0 ? letters - each * (lines - 1) : each))
  }

  it('accepts exactly the most characters and refuses one more, naming lines', async () => {
    const full = await create(designer, doc(textsOf(MAX_SCRIPT_CHARS, 3)))
    expect((await listOf(designer)).find((s) => s.id === full.id)).toMatchObject({
      characters: MAX_SCRIPT_CHARS,
      lines: 3,
    })
    const count = (await listOf(designer)).length
    await expectRefused(await call(designer, 'POST', '', doc(textsOf(MAX_SCRIPT_CHARS + 1, 3))), 400, 'lines')
    // The line breaks count: 2 lines of 20,000 letters are 40,001 characters.
    await expectRefused(
      await call(designer, 'POST', '', doc(['a'.repeat(20_000), 'a'.repeat(20_000)])),
      400,
      'lines',
    )
    const put = await call(designer, 'PUT', `/${full.id}`, {
      script: doc(textsOf(MAX_SCRIPT_CHARS + 1, 3)),
      revision: 1,
    })
    await expectRefused(put, 400, 'script.lines')
    expect((await listOf(designer)).length).toBe(count)
    expect(await current(designer, full.id)).toStrictEqual(full)
  })

  it('accepts a title of 200 characters and refuses 201', async () => {
    const long = await create(designer, doc(undefined, { title: 't'.repeat(MAX_SCRIPT_TITLE_CHARS) }))
    expect(long.title).toHaveLength(MAX_SCRIPT_TITLE_CHARS)
    await expectRefused(
      await call(designer, 'POST', '', doc(undefined, { title: 't'.repeat(MAX_SCRIPT_TITLE_CHARS + 1) })),
      400,
      'title',
    )
    await expectRefused(await call(designer, 'POST', '', doc(undefined, { title: '   ' })), 400, 'title')
  })

  it('refuses duplicate line ids, a line holding a line break, and malformed line ids', async () => {
    const duplicated = doc(['One.', 'Two.'])
    duplicated.lines[1] = { id: lineId(0), text: 'Two.' }
    await expectRefused(await call(designer, 'POST', '', duplicated), 400, 'lines')
    await expectRefused(await call(designer, 'POST', '', doc(['One.', 'Two\nthree.'])), 400, 'lines.1.text')
    const badId = doc(['One.'])
    badId.lines[0] = { id: 'line-1', text: 'One.' }
    await expectRefused(await call(designer, 'POST', '', badId), 400, 'lines.0.id')
    await expectRefused(await call(designer, 'POST', '', doc([])), 400, 'lines')
  })

  it('keeps a line’s lock through saves and unlocking; refuses a lock that is not true or false', async () => {
    const created = await create(designer, {
      ...doc(),
      lines: [
        { id: lineId(0), text: 'First line.', locked: true },
        { id: lineId(1), text: 'Second line.' },
      ],
    })
    expect(created.lines.map((l) => l.locked)).toEqual([true, undefined])
    expect(await current(designer, created.id)).toStrictEqual(created)
    const unlocked = await call(designer, 'PUT', `/${created.id}`, {
      script: {
        ...doc(),
        lines: [
          { id: lineId(0), text: 'First line.' },
          { id: lineId(1), text: 'Second line.', locked: true },
        ],
      },
      revision: created.revision,
    })
    expect(unlocked.status).toBe(200)
    const saved = savedScriptSchema.parse(await unlocked.json())
    expect(saved.lines.map((l) => l.locked)).toEqual([undefined, true])
    expect(((await current(designer, created.id)) as { lines: unknown[] }).lines).toStrictEqual(saved.lines)
    for (const locked of ['yes', 1, null]) {
      const bad = doc(['One.'])
      bad.lines[0] = { id: lineId(0), text: 'One.', locked } as never
      await expectRefused(await call(designer, 'POST', '', bad), 400, 'lines.0.locked')
    }
  })

  it('refuses decoding values out of range, naming the field', async () => {
    const hot = doc(['One.'], { settings: { model: SECOND_GEN_MODEL, voice: VOICE, temperature: 2.01 } })
    await expectRefused(await call(designer, 'POST', '', hot), 400, 'settings.temperature')
    const edge = await create(
      designer,
      doc(['One.'], { settings: { model: SECOND_GEN_MODEL, voice: VOICE, temperature: 2, top_k: 200 } }),
    )
    expect(edge.settings).toMatchObject({ temperature: 2, top_k: 200 })
    const line = doc(['One.', 'Two.'])
    const overridden = { ...line, lines: [line.lines[0], { ...line.lines[1], override: { top_k: 201 } }] }
    await expectRefused(await call(designer, 'POST', '', overridden), 400, 'lines.1.override.top_k')
    const fraction = {
      ...line,
      lines: [line.lines[0], { ...line.lines[1], override: { max_new_tokens: 600.5 } }],
    }
    await expectRefused(await call(designer, 'POST', '', fraction), 400, 'lines.1.override.max_new_tokens')
  })

  it('refuses unknown fields, bodies that are not JSON, and a save without its revision', async () => {
    await expectRefused(await call(designer, 'POST', '', { ...doc(), owner: 'someone-else' }), 400, 'owner')
    await expectRefused(await call(designer, 'POST', '', '{"title": '), 400)
    const { id } = await create(designer)
    await expectRefused(
      await call(designer, 'PUT', `/${id}`, { script: doc(['No revision.']) }),
      400,
      'revision',
    )
    await expectRefused(
      await call(designer, 'PUT', `/${id}`, { script: doc(), revision: 0 }),
      400,
      'revision',
    )
  })

  it('fits the largest script with an override on every line, and refuses a body over the limit with 413', async () => {
    const override = {
      model: 'svc-tts-mini-0.8',
      voice: `voice_${'f'.repeat(32)}`,
      speed: 1.25,
      mode: 'expressive',
      temperature: 1.2345678901234,
      top_p: 0.9876543210987,
      top_k: 200,
      min_p: 0.1234567890123,
      max_new_tokens: 12_000,
    }
    const texts = textsOf(MAX_SCRIPT_CHARS, MAX_SCRIPT_LINES)
    const largest = {
      title: 'T'.repeat(MAX_SCRIPT_TITLE_CHARS),
      settings: override,
      lines: texts.map((text, i) => ({ id: `ln_${i.toString(16).padStart(32, '0')}`, text, override })),
    }
    const saved = await create(designer, largest)
    expect(saved.lines).toHaveLength(MAX_SCRIPT_LINES)
    // With the largest cast too, each member with every setting.
    const cast = Array.from({ length: MAX_CAST_MEMBERS }, (_, i) => ({
      name: `${'N'.repeat(MAX_CAST_NAME_CHARS - 8)}${i.toString().padStart(8, '0')}`,
      settings: override,
    }))
    const withCast = await create(designer, { ...largest, cast })
    expect(withCast.cast).toHaveLength(MAX_CAST_MEMBERS)
    await call(designer, 'DELETE', `/${withCast.id}`)
    const put = await call(designer, 'PUT', `/${saved.id}`, { script: largest, revision: 1 })
    expect(put.status).toBe(200)

    const count = (await listOf(designer)).length
    const oversized = JSON.stringify(doc(['x'.repeat(MAX_SCRIPT_BODY_BYTES)]))
    await expectRefused(await call(designer, 'POST', '', oversized), 413)
    const oversizedSave = JSON.stringify({ script: doc(['x'.repeat(MAX_SCRIPT_BODY_BYTES)]), revision: 2 })
    await expectRefused(await call(designer, 'PUT', `/${saved.id}`, oversizedSave), 413)
    expect((await listOf(designer)).length).toBe(count)
    expect(await current(designer, saved.id)).toMatchObject({ revision: 2 })
  })
})

describe('the cast', () => {
  const alice = { name: 'Alice', settings: { voice: 'captain_01', speed: 0.9 } }
  const bob = { name: 'Dr. Bob', settings: { model: 'svc-tts-mini-0.8', voice: 'Jasper' } }

  it('is kept with the script and saved with it; a script without one has an empty cast', async () => {
    const created = await create(designer, doc(['Alice: Hello.', 'DR. BOB: Hi.'], { cast: [alice, bob] }))
    expect(created.cast).toStrictEqual([alice, bob])
    expect(await current(designer, created.id)).toStrictEqual(created)
    // Unset settings (and null decoding fields) stay out, as a line's do.
    const recast = [{ name: 'Alice', settings: { temperature: null, top_k: 40 } }]
    const put = await call(designer, 'PUT', `/${created.id}`, {
      script: doc(['Alice: Hi.'], { cast: recast }),
      revision: 1,
    })
    expect(put.status).toBe(200)
    expect(savedScriptSchema.parse(await put.json()).cast).toStrictEqual([
      { name: 'Alice', settings: { top_k: 40 } },
    ])
    // A save without a cast leaves none.
    const plain = await call(designer, 'PUT', `/${created.id}`, { script: doc(), revision: 2 })
    expect((await plain.json()).cast).toStrictEqual([])
    expect((await create(designer, doc())).cast).toStrictEqual([])
  })

  it('refuses a hostile cast, naming the field, and changes nothing', async () => {
    const { id } = await create(designer, doc(['Alice: Hello.'], { cast: [alice] }))
    const before = await current(designer, id)
    const refusals: [unknown, string][] = [
      ['Alice', 'cast'],
      [{ Alice: {} }, 'cast'],
      [[null], 'cast.0'],
      [[{ name: 42, settings: {} }], 'cast.0.name'],
      [[{ settings: {} }], 'cast.0.name'],
      [[{ name: 'Alice' }], 'cast.0.settings'],
      [[{ name: '', settings: {} }], 'cast.0.name'],
      [[{ name: 'alice', settings: {} }], 'cast.0.name'],
      [[{ name: 'Alice:', settings: {} }], 'cast.0.name'],
      [[{ name: ' Alice', settings: {} }], 'cast.0.name'],
      [[{ name: 'Alice\nBob', settings: {} }], 'cast.0.name'],
      [[{ name: 'One Two Three Four', settings: {} }], 'cast.0.name'],
      [[{ name: `A${'a'.repeat(MAX_CAST_NAME_CHARS)}`, settings: {} }], 'cast.0.name'],
      [[{ name: `A${'a'.repeat(100_000)}`, settings: {} }], 'cast.0.name'],
      [[alice, { name: 'ALICE', settings: {} }], 'cast.1.name'],
      [[{ ...alice, role: 'lead' }], 'cast.0.role'],
      [[{ name: 'Alice', settings: { colour: 'red' } }], 'cast.0.settings.colour'],
      [[{ name: 'Alice', settings: { temperature: 2.5 } }], 'cast.0.settings.temperature'],
      [[{ name: 'Alice', settings: { model: 'gpt-voice' } }], 'cast.0.settings.model'],
      [[{ name: 'Alice', settings: { voice: '' } }], 'cast.0.settings.voice'],
      [[{ name: 'Alice', settings: { speed: '1' } }], 'cast.0.settings.speed'],
      [
        Array.from({ length: MAX_CAST_MEMBERS + 1 }, (_, i) => ({ name: `Speaker${i}`, settings: {} })),
        'cast',
      ],
    ]
    for (const [cast, param] of refusals) {
      await expectRefused(await call(designer, 'POST', '', doc(['Hi.'], { cast })), 400, param)
      await expectRefused(
        await call(designer, 'PUT', `/${id}`, { script: doc(['Hi.'], { cast }), revision: 1 }),
        400,
        `script.${param}`,
      )
    }
    expect(await current(designer, id)).toStrictEqual(before)
  })
})

describe(`the store on ${TEST_BACKEND}`, () => {
  it('reads a script saved before casts as one with an empty cast', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripts-store-'))
    const database = testDatabase()
    const db = await database.open(dir)
    try {
      const store = new ScriptStore(db)
      const document = scriptDocumentSchema.parse(doc(['Before casts.']))
      const created = await store.create('ana', document, 100)
      // The document column as the store wrote it before casts: settings and lines only.
      await db.db
        .updateTable('scripts')
        .set({ document: JSON.stringify({ settings: document.settings, lines: document.lines }) })
        .where('id', '=', created.id)
        .execute()
      expect(await store.get('ana', created.id)).toStrictEqual({ ...created, cast: [] })
      expect(savedScriptSchema.parse(await store.get('ana', created.id)).cast).toStrictEqual([])
    } finally {
      await db.close()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps scripts across closing and reopening the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripts-store-'))
    const database = testDatabase()
    try {
      let db = await database.open(dir)
      let store = new ScriptStore(db)
      const document = scriptDocumentSchema.parse(doc(['Kept on disk.']))
      const created = await store.create('ana', document, 1_000)
      const saved = await store.save('ana', created.id, { ...document, title: 'Renamed' }, 1, 2_000)
      expect(saved).toMatchObject({ saved: { revision: 2, updated_at: 2_000 } })
      await db.close()

      db = await database.open(dir)
      store = new ScriptStore(db)
      expect(await store.get('ana', created.id)).toStrictEqual({
        ...created,
        title: 'Renamed',
        revision: 2,
        updated_at: 2_000,
      })
      expect(await store.list('ana')).toHaveLength(1)
      expect(await store.get('bea', created.id)).toBeUndefined()
      // The revision guard holds across the restart too.
      expect(await store.save('ana', created.id, document, 1, 3_000)).toMatchObject({
        conflict: { revision: 2 },
      })
      await db.close()
    } finally {
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('lists the most recently saved first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripts-store-'))
    const database = testDatabase()
    const db = await database.open(dir)
    try {
      const store = new ScriptStore(db)
      const document = scriptDocumentSchema.parse(doc())
      const older = await store.create('ana', { ...document, title: 'Older' }, 100)
      const newer = await store.create('ana', { ...document, title: 'Newer' }, 200)
      expect((await store.list('ana')).map((s) => s.title)).toEqual(['Newer', 'Older'])
      await store.save('ana', older.id, { ...document, title: 'Older, edited' }, 1, 300)
      expect((await store.list('ana')).map((s) => s.id)).toEqual([older.id, newer.id])
    } finally {
      await db.close()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('lets exactly one of many saves on the same revision through, the rest get the conflict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripts-store-'))
    const database = testDatabase()
    // Two connections (two instances) racing on one row.
    const [a, b] = [await database.open(dir), await database.open(dir)]
    try {
      const document = scriptDocumentSchema.parse(doc())
      const created = await new ScriptStore(a).create('ana', document, 100)
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          new ScriptStore(i % 2 ? a : b).save('ana', created.id, { ...document, title: `Take ${i}` }, 1, 200),
        ),
      )
      expect(outcomes.filter((o) => o && 'saved' in o)).toHaveLength(1)
      expect(outcomes.filter((o) => o && 'conflict' in o)).toHaveLength(9)
      expect(await new ScriptStore(b).get('ana', created.id)).toMatchObject({ revision: 2 })
    } finally {
      await a.close()
      await b.close()
      await database.drop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
