import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_PRONUNCIATION_TEXT_CHARS,
  MAX_PRONUNCIATIONS,
  type Pronunciation,
  pronunciationImportResultSchema,
  pronunciationListSchema,
  pronunciationSchema,
} from '../../../schema/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio, studioRefusal } from '../../testing/studio.ts'
import { MAX_PRONUNCIATION_BODY_BYTES } from './routes.ts'

/**
 * The studio's `/api/pronunciations` against the real backend and its real database (SQLite, and PostgreSQL in the
 * `postgres` project): one lexicon shared by the studio's designers, roles, CSRF, hostile bodies, imports kept whole.
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

function call(as: Partial<BrowserHeaders>, method: string, path: string, body?: unknown) {
  const json = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  return fetch(`${studio.base}/api/pronunciations${path}`, {
    method,
    headers: { ...as, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json,
  })
}

async function listOf(as: BrowserHeaders): Promise<Pronunciation[]> {
  const res = await call(as, 'GET', '')
  expect(res.status).toBe(200)
  return pronunciationListSchema.parse(await res.json()).data
}

async function add(as: BrowserHeaders, body: unknown): Promise<Pronunciation> {
  const res = await call(as, 'POST', '', body)
  expect(res.status).toBe(201)
  return pronunciationSchema.parse(await res.json())
}

async function expectRefused(res: Response, status: number, param?: string | null, extra: string[] = []) {
  expect(res.status).toBe(status)
  const error = await studioRefusal(res, extra)
  if (param !== undefined) expect(error.param).toBe(param)
  return error
}

describe('the studio’s lexicon', () => {
  it('is shared by its designers: one adds, another lists and deletes', async () => {
    const entry = await add(designer, { text: '  Kokoro ', say_as: 'koh-KOH-roh', phonemes: 'kəˈkɔːɹoʊ' })
    expect(entry).toMatchObject({
      text: 'Kokoro',
      say_as: 'koh-KOH-roh',
      phonemes: 'kəˈkɔːɹoʊ',
      case_sensitive: false,
      created_by: 'designer-user',
    })
    expect(entry.id).toMatch(/^pron_[0-9a-f]{32}$/)
    expect(await listOf(otherDesigner)).toContainEqual(entry)
    expect(await listOf(admin)).toContainEqual(entry)

    const deleted = await call(otherDesigner, 'DELETE', `/${entry.id}`)
    expect(deleted.status).toBe(204)
    expect((await listOf(designer)).map((e) => e.id)).not.toContain(entry.id)
    await expectRefused(await call(designer, 'DELETE', `/${entry.id}`), 404)
  })

  it('keeps one entry per word and case rule: the second is a 409 naming the first', async () => {
    const first = await add(designer, { text: 'SQL', say_as: 'sequel' })
    const again = await call(otherDesigner, 'POST', '', { text: 'sql', say_as: 'ess cue ell' })
    const error = await expectRefused(again, 409, 'text', ['pronunciation'])
    expect(error.message).toContain('SQL')
    // Matching the case as written is another entry.
    const cased = await add(designer, { text: 'SQL', say_as: 'ess cue ell', case_sensitive: true })
    expect(cased.case_sensitive).toBe(true)
    const list = await listOf(designer)
    expect(
      list
        .filter((e) => e.text === 'SQL')
        .map((e) => e.say_as)
        .sort(),
    ).toEqual(['ess cue ell', 'sequel'])
    for (const e of [first, cased]) expect((await call(designer, 'DELETE', `/${e.id}`)).status).toBe(204)
  })

  it('imports whole: added and replaced counted, a later entry of the file winning', async () => {
    const kept = await add(designer, { text: 'Nguyen', say_as: 'win' })
    const res = await call(designer, 'POST', '/import', {
      entries: [
        { text: 'nguyen', say_as: 'nwin', phonemes: 'ŋwɪn' },
        { text: 'Siobhan', say_as: 'shi-VAWN' },
        { text: 'Siobhan', say_as: 'shuh-VAWN' },
      ],
    })
    expect(res.status).toBe(200)
    const result = pronunciationImportResultSchema.parse(await res.json())
    expect(result).toMatchObject({ added: 1, replaced: 1 })
    const nguyen = result.data.find((e) => e.id === kept.id)
    expect(nguyen).toMatchObject({ text: 'nguyen', say_as: 'nwin', phonemes: 'ŋwɪn' })
    expect(result.data.find((e) => e.text === 'Siobhan')?.say_as).toBe('shuh-VAWN')
    for (const e of result.data) await call(designer, 'DELETE', `/${e.id}`)
  })
})

describe('refusals', () => {
  it('asks for a designer (or admin): reviewers and consent admins are refused before the body is read', async () => {
    for (const as of [reviewer, consentAdmin]) {
      await expectRefused(await call(as, 'GET', ''), 403)
      await expectRefused(await call(as, 'POST', '', { text: 'x', say_as: 'y' }), 403)
      await expectRefused(await call(as, 'POST', '/import', '{not json'), 403)
    }
    await expectRefused(await call({}, 'GET', ''), 401)
    expect((await listOf(designer)).length).toBe(0)
  })

  it('needs the session’s CSRF token to change anything', async () => {
    const forged = { ...designer, 'x-csrf-token': 'forged' }
    await expectRefused(await call(forged, 'POST', '', { text: 'Kokoro', say_as: 'x' }), 403)
    expect(await listOf(designer)).toEqual([])
  })

  it('refuses hostile entries naming the field, storing nothing', async () => {
    const cases: Array<[unknown, string | null]> = [
      [{ say_as: 'x' }, 'text'],
      [{ text: 'x' }, 'say_as'],
      [{ text: 42, say_as: 'x' }, 'text'],
      [{ text: '   ', say_as: 'x' }, 'text'],
      [{ text: '!!!', say_as: 'x' }, 'text'],
      [{ text: 'x'.repeat(MAX_PRONUNCIATION_TEXT_CHARS + 1), say_as: 'x' }, 'text'],
      [{ text: '[sad]', say_as: 'x' }, 'text'],
      [{ text: 'laugh', say_as: '<laugh>' }, 'say_as'],
      [{ text: 'two\nlines', say_as: 'x' }, 'text'],
      [{ text: 'x', say_as: 'y', phonemes: ']] <b>' }, 'phonemes'],
      [{ text: 'x', say_as: 'y', case_sensitive: 'yes' }, 'case_sensitive'],
      [{ text: 'x', say_as: 'y', owner: 'someone' }, 'owner'],
      [['text', 'say_as'], null],
      [null, null],
    ]
    for (const [body, param] of cases) {
      const error = await expectRefused(await call(designer, 'POST', '', body ?? 'null'), 400, param)
      if (param) expect(error.message).toContain(param)
    }
    await expectRefused(await call(designer, 'POST', '', '{"text": '), 400)
    const entries = [
      { text: 'fine', say_as: 'fine' },
      { text: 'bad', say_as: 'x', phonemes: 7 },
    ]
    await expectRefused(await call(designer, 'POST', '/import', { entries }), 400, 'entries.1.phonemes')
    await expectRefused(await call(designer, 'POST', '/import', { entries: [] }), 400, 'entries')
    await expectRefused(await call(designer, 'DELETE', '/../scripts'), 404)
    await expectRefused(await call(designer, 'DELETE', '/pron_nothere'), 404)
    expect(await listOf(designer)).toEqual([])
  })

  it('refuses an oversize body (413) and an import past the studio’s cap (409), keeping nothing of it', async () => {
    const big = JSON.stringify({ text: 'x', say_as: 'y'.repeat(MAX_PRONUNCIATION_BODY_BYTES) })
    await expectRefused(await call(designer, 'POST', '', big), 413)
    const many = Array.from({ length: MAX_PRONUNCIATIONS }, (_, i) => ({
      text: `word${i}`,
      say_as: `w ${i}`,
    }))
    const full = await call(designer, 'POST', '/import', { entries: many })
    expect(full.status).toBe(200)
    await expectRefused(
      await call(designer, 'POST', '/import', { entries: [{ text: 'one more', say_as: 'x' }] }),
      409,
    )
    await expectRefused(await call(designer, 'POST', '', { text: 'one more', say_as: 'x' }), 409)
    const list = await listOf(designer)
    expect(list.length).toBe(MAX_PRONUNCIATIONS)
    expect(list.some((e) => e.text === 'one more')).toBe(false)
  })
})
