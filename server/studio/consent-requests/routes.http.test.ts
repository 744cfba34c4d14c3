import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  auditOriginsSchema,
  CONSENT_PHRASE,
  CONSENT_RECORDING_MAX_BYTES,
  consentLinkRecordedSchema,
  consentLinkSchema,
  consentListSchema,
  consentRequestListSchema,
  createdConsentRequestSchema,
} from '../../../schema/index.ts'
import { TEST_REDIS_URL } from '../../testing/backends.ts'
import { type VoiceRecordings, voiceRecordings } from '../../testing/saved-voice.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio, studioRefusal } from '../../testing/studio.ts'
import { ConsentRequestStore, hashConsentLinkToken } from './store.ts'

/**
 * Remote consent through the real backend in front of the real local speech service (its phrase check, its
 * consent store): a consent administrator's link, used once by the owner without an account, and everything a link
 * must refuse. Runs on SQLite and on PostgreSQL (vite.config.ts ON_POSTGRES).
 */

let svc: RunningService
let studio: RunningStudio
let admin: BrowserHeaders
let audio: VoiceRecordings
let appDir: string

beforeAll(async () => {
  svc = await startSpeechService()
  // A stand-in for the built app, so the owner's page route has an index.html to serve.
  appDir = mkdtempSync(join(tmpdir(), 'consent-link-app-'))
  writeFileSync(
    join(appDir, 'index.html'),
    '<!doctype html><title>Speech Studio</title><div id="root"></div>',
  )
  studio = await startStudio(svc, {
    staticDir: appDir,
    consentLinkLimit: { attempts: 1000, windowMs: 60_000 },
  })
  admin = await studio.signInAs('consent_admin', 'cole')
  audio = await voiceRecordings()
}, 120_000)
afterAll(async () => {
  await studio?.close()
  await svc?.close()
  await audio?.close()
  rmSync(appDir, { recursive: true, force: true })
})

async function createRequest(
  body: unknown = { owner_name: 'Ada Lovelace', language: 'en-us' },
  headers: BrowserHeaders = admin,
  on = studio,
) {
  return fetch(`${on.base}/api/consent-requests`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function newLink(ownerName = 'Ada Lovelace', on = studio, headers = admin) {
  const res = await createRequest({ owner_name: ownerName, language: 'en-US' }, headers, on)
  expect(res.status).toBe(201)
  const created = createdConsentRequestSchema.parse(await res.json())
  return { ...created, token: created.path.split('/').at(-1) as string }
}

function recordingForm(recording: Buffer | null = audio.consent, transcript: string | null = CONSENT_PHRASE) {
  const form = new FormData()
  if (transcript !== null) form.set('consent_transcript', transcript)
  if (recording) form.set('recording', new Blob([new Uint8Array(recording)], { type: 'audio/wav' }), 'me.wav')
  return form
}

const send = (token: string, form = recordingForm(), headers: Record<string, string> = {}, on = studio) =>
  fetch(`${on.base}/api/consent-links/${token}`, { method: 'POST', body: form, headers })
const info = (token: string, on = studio, headers: Record<string, string> = {}) =>
  fetch(`${on.base}/api/consent-links/${token}`, { headers })
const page = (token: string, on = studio) => fetch(`${on.base}/consent/${token}`)

/** Every unusable link answers exactly this, whatever the reason. */
async function expectUnusable(token: string, on = studio) {
  const answer = await info(token, on)
  expect(answer.status).toBe(410)
  expect(answer.headers.get('cache-control')).toBe('no-store')
  const error = await studioRefusal(answer)
  expect(error).toEqual({
    code: 'consent_link_unusable',
    type: 'invalid_request_error',
    param: null,
    message: 'This consent link cannot be used. Ask the person who sent it for a new one.',
  })
  const plain = await page(token, on)
  expect(plain.status).toBe(410)
  expect(plain.headers.get('content-type')).toMatch(/^text\/html/)
  const html = await plain.text()
  expect(html).toContain('This consent link cannot be used')
  expect(html).not.toContain('<script')
  const posted = await send(token, recordingForm(), {}, on)
  expect(posted.status).toBe(410)
  expect((await studioRefusal(posted)).code).toBe('consent_link_unusable')
  return html
}

const consentsAtService = async () =>
  consentListSchema.parse(
    await (
      await fetch(`${svc.baseUrl}/v1/audio/voice_consents?limit=100`, {
        headers: { authorization: `Bearer ${svc.apiKey}` },
      })
    ).json(),
  ).data

describe('a consent link', () => {
  it('is made by a consent administrator, shown once, kept only as a hash, listed while open', async () => {
    const res = await createRequest({ owner_name: '  Ada Lovelace ', language: 'en-us' })
    expect(res.status).toBe(201)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const created = createdConsentRequestSchema.parse(await res.json())
    expect(created).toMatchObject({ owner_name: 'Ada Lovelace', language: 'en-US', created_by: 'cole' })
    expect(created.status).toBe('open')
    // 72 hours by default.
    expect(created.expires_at - created.created_at).toBe(72 * 3600_000)
    const token = created.path.split('/').at(-1) as string
    // 32 random bytes: 256 bits.
    expect(Buffer.from(token, 'base64url')).toHaveLength(32)
    const rows = await studio.db.db.selectFrom('consent_requests').selectAll().execute()
    const row = rows.find((r) => r.id === created.id)
    expect(row?.token_hash).toBe(hashConsentLinkToken(token))
    expect(JSON.stringify(rows)).not.toContain(token)
    // The list never shows a link again.
    const list = await fetch(`${studio.base}/api/consent-requests`, { headers: { cookie: admin.cookie } })
    const listed = consentRequestListSchema.parse(await list.json())
    expect(listed.data.map((r) => r.id)).toContain(created.id)
    expect(JSON.stringify(listed)).not.toContain(token)
  })

  it('opens for the owner without an account, is used once, and the consent appears with its provenance', async () => {
    const link = await newLink('Grace Hopper')
    const page200 = await page(link.token)
    expect(page200.status).toBe(200)
    expect(await page200.text()).toContain('<div id="root">')
    // Not kept in any cache: the address holds the token.
    expect(page200.headers.get('cache-control')).toBe('no-store')
    // No session is made for the owner.
    expect(page200.headers.get('set-cookie')).toBeNull()
    const shown = consentLinkSchema.parse(await (await info(link.token)).json())
    expect(shown).toEqual({
      object: 'consent_link',
      owner_name: 'Grace Hopper',
      language: 'en-US',
      requested_by: 'cole',
      expires_at: link.expires_at,
    })

    const sent = await send(link.token)
    expect(sent.status).toBe(201)
    expect(consentLinkRecordedSchema.parse(await sent.json())).toEqual({
      object: 'consent_link.recorded',
      owner_name: 'Grace Hopper',
      language: 'en-US',
    })
    const consent = (await consentsAtService()).find((c) => c.name === 'Grace Hopper')
    expect(consent).toBeDefined()
    const origins = auditOriginsSchema.parse(
      await (await fetch(`${studio.base}/api/audit/origins`, { headers: { cookie: admin.cookie } })).json(),
    )
    expect(origins.data.find((e) => e.upstream_id === consent?.id)).toMatchObject({
      kind: 'consent',
      action: 'created',
      user: 'cole',
      role: 'consent_admin',
      name: 'Grace Hopper',
      via: 'link',
    })

    // Used: every route of it answers the one 410, and it is no longer listed.
    await expectUnusable(link.token)
    expect((await consentsAtService()).filter((c) => c.name === 'Grace Hopper')).toHaveLength(1)
    const list = consentRequestListSchema.parse(
      await (
        await fetch(`${studio.base}/api/consent-requests`, { headers: { cookie: admin.cookie } })
      ).json(),
    )
    expect(list.data.map((r) => r.id)).not.toContain(link.id)
  })

  it('gives the service’s refusal back as it is, and stays usable for another try', async () => {
    const link = await newLink('Mumbling Owner')
    const refused = await send(link.token, recordingForm(audio.consent, 'I agree to nothing of the sort.'))
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('consent_phrase_mismatch')
    expect((await info(link.token)).status).toBe(200)
    expect((await send(link.token)).status).toBe(201)
    await expectUnusable(link.token)
  })

  it('answers the same 410 when expired, revoked, unknown or malformed: never saying which', async () => {
    const expired = await newLink('Expired Owner')
    await studio.db.db
      .updateTable('consent_requests')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', expired.id)
      .execute()
    const expiredPage = await expectUnusable(expired.token)

    const revoked = await newLink('Revoked Owner')
    const revoke = await fetch(`${studio.base}/api/consent-requests/${revoked.id}`, {
      method: 'DELETE',
      headers: { ...admin },
    })
    expect(revoke.status).toBe(200)
    expect(await revoke.json()).toEqual({ id: revoked.id, object: 'consent_request', revoked: true })
    const revokedPage = await expectUnusable(revoked.token)
    // Revoked once: revoking again finds no open request.
    const again = await fetch(`${studio.base}/api/consent-requests/${revoked.id}`, {
      method: 'DELETE',
      headers: { ...admin },
    })
    expect(again.status).toBe(404)

    const unknownPage = await expectUnusable(randomBytes(32).toString('base64url'))
    for (const malformed of ['short', 'x'.repeat(44), `${'a'.repeat(42)}%2F`])
      expect((await info(malformed)).status).toBe(410)
    expect(new Set([expiredPage, revokedPage, unknownPage]).size).toBe(1)
    expect((await consentsAtService()).some((c) => /Expired|Revoked/.test(c.name))).toBe(false)
  })

  it('held by one send at a time; a revocation during the send wins over its completion', async () => {
    const store = new ConsentRequestStore(studio.db)
    const { request, token } = await store.create({
      ownerName: 'Held Owner',
      language: 'en-US',
      by: 'cole',
      role: 'consent_admin',
      ttlMs: 60_000,
    })
    const first = await store.claim(token, 60_000)
    expect(first).toMatchObject({ request: { id: request.id } })
    expect(await store.claim(token, 60_000)).toBe('busy')
    // The page of a held link still opens (its owner may be the one sending).
    expect((await info(token)).status).toBe(200)
    const held = await send(token)
    expect(held.status).toBe(409)
    expect((await studioRefusal(held)).code).toBe('conflict')
    expect(await store.revoke(request.id)).toBe('revoked')
    if (typeof first !== 'object' || !first) throw new Error('not claimed')
    expect(await store.complete(request.id, first.claim, 'cons_x')).toBe(false)
    await expectUnusable(token)
  })

  it('a used link cannot be revoked (its consent is revoked instead)', async () => {
    const link = await newLink('Used Owner')
    expect((await send(link.token)).status).toBe(201)
    const res = await fetch(`${studio.base}/api/consent-requests/${link.id}`, {
      method: 'DELETE',
      headers: { ...admin },
    })
    expect(res.status).toBe(409)
    expect((await studioRefusal(res)).code).toBe('conflict')
  })

  it('refuses hostile input to the administrators’ routes in the envelope', async () => {
    const cases: Array<[unknown, string | null]> = [
      [{}, 'owner_name'],
      [{ owner_name: 7, language: 'en-US' }, 'owner_name'],
      [{ owner_name: '   ', language: 'en-US' }, 'owner_name'],
      [{ owner_name: 'x'.repeat(257), language: 'en-US' }, 'owner_name'],
      [{ owner_name: 'Ada', language: 'klingon-ish' }, 'language'],
      [{ owner_name: 'Ada', language: ['en-US'] }, 'language'],
      [{ owner_name: 'Ada', language: 'en-US', token: 'mine' }, null],
      [[], null],
    ]
    for (const [body, param] of cases) {
      const res = await createRequest(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      const error = await studioRefusal(res)
      expect(error.code).toBe('invalid_body')
      expect(error.param, JSON.stringify(body)).toBe(param)
    }
    const nul = await createRequest({ owner_name: 'A\u0000da', language: 'en-US' })
    expect(nul.status).toBe(400)
    const huge = await fetch(`${studio.base}/api/consent-requests`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_name: 'x'.repeat(2 * 1024 * 1024), language: 'en-US' }),
    })
    expect(huge.status).toBe(413)
    // Wrong role, no session, no CSRF token.
    const designer = await studio.signInAs('designer', 'dana')
    for (const res of [
      await createRequest(undefined, designer),
      await fetch(`${studio.base}/api/consent-requests`, { headers: { cookie: designer.cookie } }),
    ]) {
      expect(res.status).toBe(403)
      expect((await studioRefusal(res)).code).toBe('forbidden_for_role')
    }
    expect((await fetch(`${studio.base}/api/consent-requests`)).status).toBe(401)
    const noCsrf = await fetch(`${studio.base}/api/consent-requests`, {
      method: 'POST',
      headers: { cookie: admin.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ owner_name: 'Ada', language: 'en-US' }),
    })
    expect((await studioRefusal(noCsrf)).code).toBe('csrf_refused')
    const badId = await fetch(`${studio.base}/api/consent-requests/cons_0`, {
      method: 'DELETE',
      headers: { ...admin },
    })
    expect(badId.status).toBe(404)
  })

  it('refuses hostile uploads through a link, and the link stays usable', async () => {
    const link = await newLink('Careful Owner')
    const expectRefused = async (res: Response, status: number, code: string, param?: string | null) => {
      expect(res.status).toBe(status)
      const error = await studioRefusal(res)
      expect(error.code).toBe(code)
      if (param !== undefined) expect(error.param).toBe(param)
    }
    await expectRefused(
      await fetch(`${studio.base}/api/consent-links/${link.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ recording: 'base64…' }),
      }),
      415,
      'unsupported_media_type',
    )
    await expectRefused(await send(link.token, recordingForm(null)), 400, 'invalid_body', 'recording')
    await expectRefused(
      await send(link.token, recordingForm(Buffer.alloc(0))),
      400,
      'invalid_body',
      'recording',
    )
    await expectRefused(
      await send(link.token, recordingForm(Buffer.alloc(CONSENT_RECORDING_MAX_BYTES + 1))),
      413,
      'too_large',
      'recording',
    )
    await expectRefused(
      await send(link.token, recordingForm(audio.consent, 'x'.repeat(5000))),
      400,
      'invalid_body',
      'consent_transcript',
    )
    // A page of another site may not post into a link.
    await expectRefused(
      await send(link.token, recordingForm(), { origin: 'https://evil.example' }),
      403,
      'origin_refused',
    )
    // Name and language are the administrator's: a form that tries to set them is refused, naming the field.
    const form = recordingForm()
    form.set('name', 'Somebody Else')
    form.set('language', 'de-DE')
    await expectRefused(await send(link.token, form), 400, 'invalid_body', 'name')
    expect((await send(link.token, recordingForm())).status).toBe(201)
    const consent = (await consentsAtService()).find((c) => c.name === 'Careful Owner')
    expect(consent?.language).toBe('en-US')
    expect((await consentsAtService()).some((c) => c.name === 'Somebody Else')).toBe(false)
  })

  it('reaches nothing else: not a session, not a CSRF token, not a key of the service', async () => {
    const link = await newLink('Token Owner')
    const token = link.token
    const spoofs: Array<Record<string, string>> = [
      { cookie: `studio_session=${token}` },
      { authorization: `Bearer ${token}` },
      { cookie: `studio_session=${token}`, 'x-csrf-token': token },
    ]
    for (const headers of spoofs) {
      for (const path of [
        '/api/auth/me',
        '/api/audit',
        '/api/consent-requests',
        '/api/v1/audio/voice_consents',
      ])
        expect((await fetch(`${studio.base}${path}`, { headers })).status, path).toBe(401)
      const write = await fetch(`${studio.base}/api/consent-requests`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ owner_name: 'Ada', language: 'en-US' }),
      })
      expect(write.status).toBe(403)
    }
    const atService = await fetch(`${svc.baseUrl}/v1/audio/voice_consents`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(atService.status).toBe(401)
    // The link's own routes take the token in their path only.
    expect(
      (await fetch(`${studio.base}/api/consent-links/x`, { headers: { authorization: `Bearer ${token}` } }))
        .status,
    ).toBe(410)
    // Still usable after all that.
    expect((await info(token)).status).toBe(200)
  })
})

describe('attempts at consent links', () => {
  const prefix = `test-consent-${process.pid}-${randomBytes(4).toString('hex')}:`
  let a: RunningStudio
  let b: RunningStudio
  beforeAll(async () => {
    const limit = {
      consentLinkLimit: { attempts: 4, windowMs: 60_000 },
      redis: { url: TEST_REDIS_URL, prefix },
    }
    a = await startStudio(svc, limit)
    b = await startStudio(svc, { ...limit, share: a })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  it('are limited per address across instances (Redis), spoofed forwarding headers or not; a good link is not counted', async () => {
    const adminA = await a.signInAs('consent_admin', 'cole')
    const link = await newLink('Counted Owner', a, adminA)
    // A good token through either instance, many times: never counted.
    for (let i = 0; i < 6; i++) expect((await info(link.token, i % 2 ? b : a)).status).toBe(200)
    // Wrong tokens alternate between the instances, each with another forwarded address.
    for (let i = 0; i < 4; i++) {
      const res = await info(randomBytes(32).toString('base64url'), i % 2 ? b : a, {
        'x-forwarded-for': `203.0.113.${i}`,
        'x-real-ip': `198.51.100.${i}`,
      })
      expect(res.status).toBe(410)
    }
    for (const [on, what] of [
      [a, () => info(link.token, a)],
      [b, () => page(link.token, b)],
      [a, () => send(link.token, recordingForm(), {}, a)],
    ] as const) {
      const limited = await what()
      expect(limited.status, on.base).toBe(429)
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await studioRefusal(limited)).code).toBe('rate_limited')
    }
    // The link itself was not used by the refused send.
    const row = await a.db.db
      .selectFrom('consent_requests')
      .select('status')
      .where('id', '=', link.id)
      .executeTakeFirst()
    expect(row?.status).toBe('open')
  })

  it('is used once when two instances receive its recording at the same moment', async () => {
    const adminB = await b.signInAs('consent_admin', 'cora')
    const link = await newLink('Raced Owner', b, adminB)
    // The attempts of the test above are forgotten: these sends come from the address it used up.
    const counted = (await b.redis?.keys(`${prefix}consent-link:*`)) ?? []
    if (counted.length > 0) await b.redis?.del(...counted)
    const answers = await Promise.all([
      send(link.token, recordingForm(), {}, a),
      send(link.token, recordingForm(), {}, b),
    ])
    const statuses = answers.map((r) => r.status).sort()
    expect(statuses[0]).toBe(201)
    expect([409, 410]).toContain(statuses[1])
    expect((await consentsAtService()).filter((c) => c.name === 'Raced Owner')).toHaveLength(1)
    await expectUnusable(link.token, a)
  })
})
