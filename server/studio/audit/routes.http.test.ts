import { randomBytes } from 'node:crypto'
import multipart from '@fastify/multipart'
import Fastify, { type FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type AuditEvent,
  type AuditPage,
  auditOriginsSchema,
  auditPageSchema,
  consentRecordSchema,
} from '../../../schema/index.ts'
import { redactingLogger } from '../../logging.ts'
import type { RunningService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'

/**
 * The audit trail through the real backend and its real proxy, in front of a small stand-in for the service's
 * consent and voice routes (their contract: contract 4.3–4.9), so the trail is tested without the speech engines.
 */

const KEY = 'sk_test_audit_upstream_key'
const hex = () => randomBytes(16).toString('hex')

interface Stored {
  consents: Map<string, { name: string; language: string }>
  voices: Map<string, { name: string; consent: string | null }>
}

async function fakeService(): Promise<{ app: FastifyInstance; baseUrl: string; stored: Stored }> {
  const stored: Stored = { consents: new Map(), voices: new Map() }
  const app = Fastify()
  await app.register(multipart)
  const envelope = (code: string, param: string | null, message: string) => ({
    error: { message, type: 'invalid_request_error', param, code },
    request_id: `req_${hex()}`,
  })
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== `Bearer ${KEY}`) return reply.code(401).send({ detail: 'no key' })
  })
  /** The text fields of a multipart body, and the size of its one file. */
  async function form(request: import('fastify').FastifyRequest) {
    const fields: Record<string, string> = {}
    let fileBytes = 0
    for await (const part of request.parts()) {
      if (part.type === 'file') fileBytes += (await part.toBuffer()).length
      else fields[part.fieldname] = String(part.value)
    }
    return { fields, fileBytes }
  }
  app.post('/v1/audio/voice_consents', async (request, reply) => {
    const { fields, fileBytes } = await form(request)
    if (fileBytes === 0) return reply.code(400).send(envelope('invalid_audio', 'recording', 'Empty.'))
    if (fields.name === 'mumbled')
      return reply.code(400).send(envelope('consent_phrase_mismatch', 'recording', 'Heard something else.'))
    const id = `cons_${hex()}`
    stored.consents.set(id, { name: fields.name ?? '', language: fields.language ?? '' })
    return {
      id,
      object: 'audio.voice_consent',
      name: fields.name,
      language: fields.language,
      created_at: Math.floor(Date.now() / 1000),
    }
  })
  app.delete<{ Params: { id: string } }>('/v1/audio/voice_consents/:id', async (request, reply) => {
    const { id } = request.params
    if (!stored.consents.delete(id)) return reply.code(404).send(envelope('consent_not_found', null, 'No.'))
    for (const [voiceId, voice] of stored.voices) if (voice.consent === id) stored.voices.delete(voiceId)
    return { id, deleted: true, object: 'audio.voice_consent' }
  })
  app.post('/v1/audio/voices', async (request, reply) => {
    const { fields } = await form(request)
    const consent = fields.consent ?? null
    if (consent && !stored.consents.has(consent))
      return reply.code(404).send(envelope('consent_not_found', 'consent', 'No such consent.'))
    const id = `voice_${hex()}`
    stored.voices.set(id, { name: fields.name ?? '', consent })
    return { id, object: 'audio.voice', name: fields.name, created_at: Math.floor(Date.now() / 1000) }
  })
  app.delete<{ Params: { id: string } }>('/v1/audio/voices/:id', async (request, reply) => {
    const { id } = request.params
    if (!stored.voices.delete(id)) return reply.code(404).send(envelope('voice_not_found', null, 'No.'))
    return { id, deleted: true, object: 'audio.voice' }
  })
  app.get('/v1/voices', async () => ({
    object: 'list',
    model: 'svc-tts-2-latest',
    data: [...stored.voices].map(([id, v]) => ({
      id,
      object: 'voice',
      type: 'saved',
      name: v.name,
      group: 'saved',
      language: 'en',
      gender: '',
      description: '',
      consent: v.consent,
      created_at: 0,
    })),
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('no port')
  return { app, baseUrl: `http://127.0.0.1:${address.port}`, stored }
}

let upstream: Awaited<ReturnType<typeof fakeService>>
let studio: RunningStudio
let consentAdmin: BrowserHeaders

beforeAll(async () => {
  upstream = await fakeService()
  // The studio uses only the service's address and key.
  studio = await startStudio({ baseUrl: upstream.baseUrl, apiKey: KEY } as RunningService)
  consentAdmin = await studio.signInAs('consent_admin', 'cora')
})
afterAll(async () => {
  await studio.close()
  await upstream.app.close()
})

function upload(path: string, headers: BrowserHeaders, fields: Record<string, string>, file: string) {
  const body = new FormData()
  for (const [k, v] of Object.entries(fields)) body.set(k, v)
  body.set(file, new Blob([new Uint8Array(2048)], { type: 'audio/wav' }), 'clip.wav')
  return fetch(`${studio.base}/api${path}`, { method: 'POST', headers: { ...headers }, body })
}

const createConsent = (name: string, headers = consentAdmin) =>
  upload('/v1/audio/voice_consents', headers, { name, language: 'en-US' }, 'recording')
const createVoice = (name: string, consent?: string) =>
  upload('/v1/audio/voices', consentAdmin, consent ? { name, consent } : { name }, 'audio_sample')
const remove = (path: string) =>
  fetch(`${studio.base}/api${path}`, { method: 'DELETE', headers: { ...consentAdmin } })

/** Parsed with the shapes the voices page parses (schema/audit.ts), so an answer that drifts from them fails here. */
async function audit(query = '', headers: BrowserHeaders = consentAdmin): Promise<AuditPage> {
  const res = await fetch(`${studio.base}/api/audit${query}`, { headers: { cookie: headers.cookie } })
  expect(res.status).toBe(200)
  return auditPageSchema.parse(await res.json())
}

async function origins(): Promise<AuditEvent[]> {
  const res = await fetch(`${studio.base}/api/audit/origins`, { headers: { cookie: consentAdmin.cookie } })
  expect(res.status).toBe(200)
  return auditOriginsSchema.parse(await res.json()).data
}

describe('the audit trail', () => {
  it('records a consent created through the proxy, with who and when, and passes the answer on unchanged', async () => {
    const before = Math.floor(Date.now() / 1000)
    const res = await createConsent('Ada Lovelace')
    expect(res.status).toBe(200)
    const consent = (await res.json()) as { id: string; name: string; object: string }
    expect(consent).toMatchObject({ name: 'Ada Lovelace', object: 'audio.voice_consent' })
    expect(upstream.stored.consents.has(consent.id)).toBe(true)

    const [latest] = (await audit()).data
    expect(latest).toMatchObject({
      user: 'cora',
      role: 'consent_admin',
      kind: 'consent',
      action: 'created',
      upstream_id: consent.id,
      name: 'Ada Lovelace',
      consent_id: null,
    })
    expect(latest?.at).toBeGreaterThanOrEqual(before)
    expect((await origins()).map((e) => e.upstream_id)).toContain(consent.id)
  })

  it('records nothing when the service refuses', async () => {
    const count = (await audit('?limit=200')).data.length
    const refused = await createConsent('mumbled')
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('consent_phrase_mismatch')
    const missing = await createVoice('Orphan', `cons_${hex()}`)
    expect(missing.status).toBe(404)
    expect((await remove(`/v1/audio/voices/voice_${hex()}`)).status).toBe(404)
    expect((await audit('?limit=200')).data.length).toBe(count)
  })

  it('records the consent a voice is bound to, and its deletion with its name', async () => {
    const consent = (await (await createConsent('Grace Hopper')).json()) as { id: string }
    const voiceRes = await createVoice('Grace narrating', consent.id)
    expect(voiceRes.status).toBe(200)
    const voice = (await voiceRes.json()) as { id: string }
    const extension = (await (await createVoice('Free voice')).json()) as { id: string }

    const trail = (await audit()).data
    expect(trail.find((e) => e.upstream_id === voice.id)).toMatchObject({
      kind: 'voice',
      action: 'created',
      name: 'Grace narrating',
      consent_id: consent.id,
    })
    expect(trail.find((e) => e.upstream_id === extension.id)).toMatchObject({ consent_id: null })

    expect((await remove(`/v1/audio/voices/${voice.id}`)).status).toBe(200)
    const [deleted] = (await audit()).data
    expect(deleted).toMatchObject({
      kind: 'voice',
      action: 'deleted',
      upstream_id: voice.id,
      name: 'Grace narrating',
      consent_id: consent.id,
      user: 'cora',
    })
    expect((await origins()).map((e) => e.upstream_id)).not.toContain(voice.id)
  })

  it('records a consent deletion and the revocation of every voice that went with it', async () => {
    const consent = (await (await createConsent('Alan Turing')).json()) as { id: string }
    const a = (await (await createVoice('Alan calm', consent.id)).json()) as { id: string }
    const b = (await (await createVoice('Alan bright', consent.id)).json()) as { id: string }
    expect((await remove(`/v1/audio/voice_consents/${consent.id}`)).status).toBe(200)

    const recent = (await audit('?limit=3')).data
    expect(recent.map((e) => [e.kind, e.action, e.upstream_id])).toEqual([
      ['voice', 'revoked', b.id],
      ['voice', 'revoked', a.id],
      ['consent', 'deleted', consent.id],
    ])
    expect(recent.find((e) => e.upstream_id === a.id)).toMatchObject({
      name: 'Alan calm',
      consent_id: consent.id,
    })
    const live = (await origins()).map((e) => e.upstream_id)
    for (const id of [consent.id, a.id, b.id]) expect(live).not.toContain(id)
  })

  it("gives one consent's whole record as a download, after its revocation too", async () => {
    const consent = (await (await createConsent('Ada Lovelace')).json()) as { id: string }
    const kept = (await (await createVoice('Ada slow', consent.id)).json()) as { id: string }
    const dropped = (await (await createVoice('Ada fast', consent.id)).json()) as { id: string }
    expect((await remove(`/v1/audio/voices/${dropped.id}`)).status).toBe(200)
    expect((await remove(`/v1/audio/voice_consents/${consent.id}`)).status).toBe(200)

    const get = (id: string, headers: BrowserHeaders = consentAdmin) =>
      fetch(`${studio.base}/api/audit/consents/${id}/record`, { headers: { cookie: headers.cookie } })
    const res = await get(consent.id)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="consent-record-${consent.id}.json"`,
    )
    const record = consentRecordSchema.parse(await res.json())
    expect(record).toMatchObject({
      consent_id: consent.id,
      name: 'Ada Lovelace',
      recorded: { by: 'cora', role: 'consent_admin', how: 'in_person', link: null },
      revoked: { by: 'cora', role: 'consent_admin' },
      erased: [],
    })
    expect(record.voices.map((v) => [v.voice_id, v.name, v.created_by, v.ended?.action])).toEqual([
      [kept.id, 'Ada slow', 'cora', 'revoked'],
      [dropped.id, 'Ada fast', 'cora', 'deleted'],
    ])
    expect(record.events.map((e) => e.action)).toEqual([
      'created',
      'created',
      'created',
      'deleted',
      'deleted',
      'revoked',
    ])

    expect((await get('cons_00000000000000000000000000000000')).status).toBe(404)
    expect((await get('not-a-consent')).status).toBe(404)
    expect((await get(consent.id, await studio.signInAs('designer'))).status).toBe(403)
  })

  it('pages newest first and filters by kind', async () => {
    const all = (await audit('?limit=200')).data
    const first = await audit('?limit=2')
    expect(first.data).toEqual(all.slice(0, 2))
    expect(first.has_more).toBe(true)
    const second = await audit(`?limit=2&before=${first.next_before}`)
    expect(second.data).toEqual(all.slice(2, 4))
    expect((await audit('?kind=consent&limit=200')).data.every((e) => e.kind === 'consent')).toBe(true)
    const bad = await fetch(`${studio.base}/api/audit?limit=0`, { headers: { cookie: consentAdmin.cookie } })
    expect(bad.status).toBe(400)
  })

  it('is open to administrators and consent administrators only', async () => {
    const admin = await studio.signInAs('admin', 'ann')
    expect((await audit('', admin)).data.length).toBeGreaterThan(0)
    // An administrator's own changes are recorded under their name.
    const res = await createConsent('By the admin', admin)
    expect(res.status).toBe(200)
    expect((await audit('?limit=1')).data[0]).toMatchObject({ user: 'ann', role: 'admin' })

    for (const role of ['designer', 'reviewer'] as const) {
      const other = await studio.signInAs(role)
      const refused = await fetch(`${studio.base}/api/audit`, { headers: { cookie: other.cookie } })
      expect(refused.status).toBe(403)
      const origin = await fetch(`${studio.base}/api/audit/origins`, { headers: { cookie: other.cookie } })
      expect(origin.status).toBe(403)
    }
    expect((await fetch(`${studio.base}/api/audit`)).status).toBe(401)
  })

  it('writes no consent or voice id to the log, also when recording fails', async () => {
    const lines: string[] = []
    const logged = await startStudio({ baseUrl: upstream.baseUrl, apiKey: KEY } as RunningService, {
      logger: redactingLogger('info', { write: (line) => lines.push(line) }),
    })
    const who = await logged.signInAs('consent_admin', 'quiet')
    const post = (path: string, fields: Record<string, string>, file: string) => {
      const body = new FormData()
      for (const [k, v] of Object.entries(fields)) body.set(k, v)
      body.set(file, new Blob([new Uint8Array(64)]), 'clip.wav')
      return fetch(`${logged.base}/api${path}`, { method: 'POST', headers: { ...who }, body })
    }
    const consent = (await (
      await post('/v1/audio/voice_consents', { name: 'Logged', language: 'en' }, 'recording')
    ).json()) as { id: string }
    const voice = (await (
      await post('/v1/audio/voices', { name: 'Logged voice', consent: consent.id }, 'audio_sample')
    ).json()) as { id: string }
    // A broken audit table makes recording fail; the answer still reaches the caller, and the log names no id.
    await sql`ALTER TABLE audit_events RENAME TO audit_events_moved`.execute(logged.db.db)
    const del = await fetch(`${logged.base}/api/v1/audio/voices/${voice.id}`, {
      method: 'DELETE',
      headers: { ...who },
    })
    expect(del.status).toBe(200)
    expect(((await del.json()) as { deleted: boolean }).deleted).toBe(true)
    await sql`ALTER TABLE audit_events_moved RENAME TO audit_events`.execute(logged.db.db)
    await logged.close()

    const log = lines.join('')
    expect(log).toContain('audit record failed')
    expect(log).toContain('voice_[redacted]')
    for (const id of [consent.id, voice.id]) expect(log).not.toContain(id.slice(-32))
  })
})
