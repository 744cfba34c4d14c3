import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { redactingLogger, redactSecrets } from './logging.ts'
import { type RunningService, startSpeechService } from './testing/service.ts'
import { type RunningStudio, startStudio } from './testing/studio.ts'

const lines: string[] = []
let svc: RunningService
let studio: RunningStudio

beforeAll(async () => {
  const sink = { write: (line: string) => void lines.push(line) }
  svc = await startSpeechService({ logger: redactingLogger('info', sink) })
  studio = await startStudio(svc, { logger: redactingLogger('info', sink) })
})
afterAll(async () => {
  await studio.close()
  await svc.close()
})

const VOICE = `voice_${'ab'.repeat(16)}`
const CONSENT = `cons_${'cd'.repeat(16)}`

describe('redacting logger', () => {
  it('masks keys, ids, tokens and cookies wherever they appear in a line', () => {
    const line = `{"url":"/v1/audio/voices/${VOICE}","msg":"Bearer sk_abcdefghijkl ek_zyxwvutsrq ${CONSENT} studio_session=abc.def; /continuations/${'e'.repeat(32)}"}`
    const out = redactSecrets(line)
    for (const secret of [VOICE, CONSENT, 'sk_abcdefghijkl', 'ek_zyxwvutsrq', 'abc.def', 'e'.repeat(32)]) {
      expect(out).not.toContain(secret)
    }
    expect(out).toContain('/v1/audio/voices/voice_[redacted]')
    const token = 'Ab3_-'.repeat(8).concat('xyz')
    const links = redactSecrets(`{"url":"/consent/${token}"} {"url":"/api/consent-links/${token}"}`)
    expect(links).not.toContain(token)
    expect(links).toContain('/consent/[redacted]')
    expect(links).toContain('/api/consent-links/[redacted]')
  })

  it('keeps secrets out of the real servers’ request logs', async () => {
    const designer = await studio.signInAs('designer')
    await fetch(`${svc.baseUrl}/v1/audio/voices/${VOICE}?consent=${CONSENT}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${svc.apiKey}` },
    })
    await fetch(`${svc.baseUrl}/v1/voices`, { headers: { authorization: 'Bearer sk_not_a_real_key_at_all' } })
    const res = await fetch(`${studio.base}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...designer },
      body: JSON.stringify({ input: 'Logged?', voice: { id: VOICE }, model: 'svc-tts-2-latest' }),
    })
    expect(res.status).toBe(404)
    // A consent link's token, in the page's and the API's request lines.
    const consentAdmin = await studio.signInAs('consent_admin')
    const created = await fetch(`${studio.base}/api/consent-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...consentAdmin },
      body: JSON.stringify({ owner_name: 'Logged Owner', language: 'en-US' }),
    })
    const linkToken = ((await created.json()) as { path: string }).path.split('/').at(-1) as string
    expect((await fetch(`${studio.base}/api/consent-links/${linkToken}`)).status).toBe(200)
    await fetch(`${studio.base}/consent/${linkToken}`)
    const log = lines.join('')
    expect(log).toContain('/v1/audio/voices/voice_[redacted]')
    for (const secret of [
      svc.apiKey,
      VOICE,
      CONSENT,
      'sk_not_a_real_key_at_all',
      designer.cookie.split('=')[1] ?? '',
      linkToken,
    ]) {
      expect(log).not.toContain(secret)
    }
  })
})
