import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_PHRASE } from '../../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../../engine/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { speechTestDatabase } from '../../testing/speech-database.ts'
import { fitToSeconds, spokenPcm, wavFile } from '../../testing/spoken-audio.ts'

/**
 * Saved voices and consents against the real service: real PocketSphinx phrase checks, the real speaker embedder,
 * real SQLite and files. Audio is real speech from the eSpeak engine.
 */

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Body = Record<string, any>

let synth: Synthesizer
let svc: RunningService
let consentWav: Buffer
let sampleWav: Buffer
let otherSpeakerWav: Buffer
let wrongPhraseWav: Buffer

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  const pad = new Int16Array(12_000)
  const phrase = await spokenPcm(synth, CONSENT_PHRASE, 'english_40')
  consentWav = wavFile(Int16Array.from([...pad, ...phrase, ...pad]))
  sampleWav = wavFile(
    await spokenPcm(
      synth,
      'The weather today is bright and calm, and the river runs slowly past the mill.',
      'english_40',
    ),
  )
  otherSpeakerWav = wavFile(
    await spokenPcm(
      synth,
      'The weather today is bright and calm, and the river runs slowly past the mill.',
      'robot_03',
    ),
  )
  wrongPhraseWav = wavFile(
    await spokenPcm(
      synth,
      'Please send the quarterly report to the finance team before Friday.',
      'english_40',
    ),
  )
  svc = await startSpeechService({ synthesizer: synth })
}, 120_000)
afterAll(async () => {
  await svc?.close()
  await synth?.close()
})

const auth = (key = svc.apiKey) => ({ authorization: `Bearer ${key}` })

function form(fields: Record<string, string>, files: Record<string, Buffer> = {}): FormData {
  const body = new FormData()
  for (const [k, v] of Object.entries(fields)) body.append(k, v)
  for (const [k, v] of Object.entries(files)) body.append(k, new Blob([new Uint8Array(v)]), `${k}.wav`)
  return body
}

async function post(path: string, body: FormData, key?: string) {
  const res = await fetch(`${svc.baseUrl}${path}`, { method: 'POST', headers: auth(key), body })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Body }
}

const createConsent = (fields: Record<string, string> = {}, recording = consentWav, key?: string) =>
  post('/v1/audio/voice_consents', form({ name: 'Ada', language: 'en-US', ...fields }, { recording }), key)

const createVoice = (fields: Record<string, string> = {}, sample = sampleWav, key?: string) =>
  post('/v1/audio/voices', form({ name: 'Ada narrator', ...fields }, { audio_sample: sample }), key)

async function speech(voice: string, key?: string) {
  const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { ...auth(key), 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'svc-tts-2-latest',
      input: 'Hello there.',
      voice: { id: voice },
      response_format: 'pcm',
    }),
  })
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) }
}

async function catalog(key?: string) {
  const res = await fetch(`${svc.baseUrl}/v1/voices?model=svc-tts-2-latest`, { headers: auth(key) })
  return ((await res.json()) as { data: Array<{ id: string; type: string; consent?: string | null }> }).data
}

/** The ids whose audio the database holds. */
const stored = (kind: 'consents' | 'voices') => svc.service.voices.store.artifactIds(kind)
const hasAudio = async (kind: 'consents' | 'voices', id: string) => (await stored(kind)).includes(id)
const otherOrgKey = async () =>
  (await svc.service.keys.create({ kind: 'organization', org: `other-${Math.random()}` })).key

describe('consents', () => {
  it('accepts the consent phrase checked by recognition and returns audio.voice_consent', async () => {
    const res = await createConsent({ language: 'en-us' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cons_[0-9a-f]{32}$/),
      object: 'audio.voice_consent',
      name: 'Ada',
      language: 'en-US',
      created_at: expect.any(Number),
    })
    expect(await hasAudio('consents', res.body.id)).toBe(true)
  }, 60_000)

  it('refuses a recording that says another sentence, and stores nothing', async () => {
    const before = await stored('consents')
    const res = await createConsent({}, wrongPhraseWav)
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'consent_phrase_mismatch', param: 'recording' })
    expect(res.body.error.message).toContain('Heard')
    expect(await stored('consents')).toEqual(before)
  }, 60_000)

  it('checks a supplied consent_transcript word for word instead of recognizing', async () => {
    const ok = await createConsent({
      consent_transcript: "I'm the owner of this voice, and I consent to its use to create a synthetic voice",
    })
    expect(ok.status).toBe(200)
    const bad = await createConsent({ consent_transcript: 'I am the owner of this voice.' })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'consent_phrase_mismatch', param: 'consent_transcript' })
  }, 60_000)

  it('enforces 2 to 30 seconds at the boundaries', async () => {
    const phrase = await spokenPcm(
      synth,
      `${CONSENT_PHRASE} ${CONSENT_PHRASE} ${CONSENT_PHRASE} ${CONSENT_PHRASE}`,
    )
    const clip = (s: number) => wavFile(fitToSeconds(phrase, s))
    const transcript = { consent_transcript: CONSENT_PHRASE }
    for (const [seconds, status] of [
      [1.95, 400],
      [30.0, 200],
      [30.05, 400],
    ] as const) {
      const res = await createConsent(transcript, clip(seconds))
      expect(res.status, `${seconds} s: ${JSON.stringify(res.body)}`).toBe(status)
      if (status === 400) expect(res.body.error.code).toBe('recording_duration_out_of_range')
    }
    // 2.0 s passes the duration check; two seconds hold less voiced speech than verification needs
    // (MIN_VERIFIED_SPEECH_SECONDS), so the evidence check refuses it as too short, saying to record longer.
    const shortest = await createConsent(transcript, clip(2.0))
    expect(shortest.status, JSON.stringify(shortest.body)).toBe(400)
    expect(shortest.body.error).toMatchObject({ code: 'invalid_audio', param: 'recording' })
    expect(shortest.body.error.message).toMatch(/too little speech.*longer/)
  }, 120_000)

  it('refuses two speakers in one consent recording', async () => {
    const a = await spokenPcm(synth, 'I am the owner of this voice and I consent', 'marcus_deep_male_21')
    const b = await spokenPcm(synth, 'to its use to create a synthetic voice.', 'pixie_06')
    const res = await createConsent(
      { consent_transcript: CONSENT_PHRASE },
      wavFile(Int16Array.from([...a, ...b, ...a, ...b])),
    )
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: 'multiple_speakers', param: 'recording' })
  }, 60_000)

  it('refuses empty, corrupt and unsupported audio and oversize uploads, storing nothing', async () => {
    const before = await stored('consents')
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt garbage'),
      Buffer.from('just some text'),
    ]) {
      const res = await createConsent({ consent_transcript: CONSENT_PHRASE }, bytes)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatchObject({ code: 'invalid_audio', param: 'recording' })
    }
    const huge = await createConsent({}, Buffer.alloc(10 * 1024 * 1024 + 1))
    expect(huge.status).toBe(413)
    expect(huge.body).toMatchObject({ param: 'recording', detail: expect.stringContaining('10 MiB') })
    expect(await stored('consents')).toEqual(before)
  }, 60_000)

  it('validates fields: language tag, name, unknown fields, content type', async () => {
    const badTag = await createConsent({ language: 'english' })
    expect(badTag.status).toBe(400)
    expect(badTag.body).toMatchObject({ param: 'language', detail: expect.any(String) })
    const noName = await post(
      '/v1/audio/voice_consents',
      form({ language: 'en-US' }, { recording: consentWav }),
    )
    expect(noName.body).toMatchObject({ param: 'name' })
    const unknown = await createConsent({ colour: 'blue' })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ param: 'colour' })
    const json = await fetch(`${svc.baseUrl}/v1/audio/voice_consents`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', language: 'en-US' }),
    })
    expect(json.status).toBe(415)
  }, 60_000)

  it('lists newest first with cursor paging and limit 1 to 100', async () => {
    const key = await otherOrgKey()
    const ids: string[] = []
    for (const name of ['one', 'two', 'three']) {
      ids.push((await createConsent({ name, consent_transcript: CONSENT_PHRASE }, consentWav, key)).body.id)
    }
    const list = async (q: string) => {
      const res = await fetch(`${svc.baseUrl}/v1/audio/voice_consents${q}`, { headers: auth(key) })
      return { status: res.status, body: (await res.json()) as Body }
    }
    const first = await list('?limit=2')
    expect(first.body).toMatchObject({ object: 'list', has_more: true, first_id: ids[2], last_id: ids[1] })
    expect(first.body.data.map((c: { name: string }) => c.name)).toEqual(['three', 'two'])
    const second = await list(`?limit=2&after=${first.body.last_id}`)
    expect(second.body).toMatchObject({ has_more: false, first_id: ids[0], last_id: ids[0] })
    expect((await list('?limit=100')).body.data).toHaveLength(3)
    for (const q of ['?limit=0', '?limit=101', '?limit=2.5', '?after=nope'])
      expect((await list(q)).status).toBe(400)
    // Another organization's consents are neither listed nor usable as a cursor.
    expect((await list('')).body.data.every((c: { id: string }) => ids.includes(c.id))).toBe(true)
    const foreignCursor = (await createConsent({ consent_transcript: CONSENT_PHRASE })).body.id
    expect((await list(`?after=${foreignCursor}`)).status).toBe(404)
  }, 120_000)
})

describe('saved voices', () => {
  it('creates a voice in the extension form; it speaks, is listed for its owner only', async () => {
    const res = await createVoice()
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^voice_[0-9a-f]{32}$/),
      object: 'audio.voice',
      name: 'Ada narrator',
      created_at: expect.any(Number),
    })
    const id = res.body.id as string
    expect((await catalog()).find((v) => v.id === id)).toMatchObject({ type: 'saved', consent: null })
    const spoken = await speech(id)
    expect(spoken.status).toBe(200)
    expect(spoken.bytes.byteLength).toBeGreaterThan(4800)

    const foreign = await otherOrgKey()
    expect((await catalog(foreign)).some((v) => v.id === id)).toBe(false)
    const theirs = await speech(id, foreign)
    const nobody = await speech(`voice_${'0'.repeat(32)}`, foreign)
    expect(theirs.status).toBe(404)
    const body = (b: Buffer) => {
      const { request_id: _, ...rest } = JSON.parse(b.toString())
      return rest
    }
    expect(body(theirs.bytes)).toEqual(body(nobody.bytes))
    expect(body(theirs.bytes).error.code).toBe('voice_not_found')
  }, 60_000)

  it('refuses a name holding a NUL character with 400 on either backend, and stores nothing', async () => {
    const before = await stored('voices')
    for (const res of [
      await createVoice({ name: 'Ada\u0000' }),
      await createConsent({ name: 'A\u0000da' }),
    ]) {
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ param: 'name', detail: expect.stringMatching(/NUL/) })
    }
    expect(await stored('voices')).toEqual(before)
  }, 60_000)

  it('binds a voice to a consent when the speaker matches, refuses another speaker with 422', async () => {
    const consent = (await createConsent()).body.id as string
    const ok = await createVoice({ consent })
    expect(ok.status).toBe(200)
    expect((await catalog()).find((v) => v.id === ok.body.id)?.consent).toBe(consent)

    const before = await stored('voices')
    const mismatch = await createVoice({ consent }, otherSpeakerWav)
    expect(mismatch.status).toBe(422)
    expect(mismatch.body.error).toMatchObject({ code: 'speaker_verification_failed', param: 'audio_sample' })
    expect(await stored('voices')).toEqual(before)
  }, 60_000)

  it('refuses a consent-bound sample with too little voice to verify, and takes it without a consent', async () => {
    // 2 s of audio, about 1.5 s of it voiced: enough for a voice, under what verification needs.
    const short = wavFile(await spokenPcm(synth, 'The weather today is bright and calm.', 'english_40'))
    const consent = (await createConsent()).body.id as string
    const before = await stored('voices')
    const bound = await createVoice({ consent }, short)
    expect(bound.status).toBe(400)
    expect(bound.body.error).toMatchObject({ code: 'invalid_audio', param: 'audio_sample' })
    expect(bound.body.error.message).toMatch(/too little speech \(1\.\d s of voice; at least 1\.75 s.*longer/)
    expect(await stored('voices')).toEqual(before)
    expect((await createVoice({}, short)).status).toBe(200)
  }, 60_000)

  it('refuses an unknown or foreign consent with 404 consent_not_found', async () => {
    const foreignConsent = (
      await createConsent({ consent_transcript: CONSENT_PHRASE }, consentWav, await otherOrgKey())
    ).body.id
    for (const consent of [foreignConsent, `cons_${'f'.repeat(32)}`, 'cons_short']) {
      const res = await createVoice({ consent })
      expect(res.status).toBe(404)
      expect(res.body.error.code).toBe('consent_not_found')
    }
  }, 60_000)

  it('deleting a voice revokes only it and removes its files', async () => {
    const a = (await createVoice()).body.id as string
    const b = (await createVoice()).body.id as string
    const res = await fetch(`${svc.baseUrl}/v1/audio/voices/${a}`, { method: 'DELETE', headers: auth() })
    expect(await res.json()).toEqual({ id: a, deleted: true, object: 'audio.voice' })
    expect((await speech(a)).status).toBe(404)
    expect((await speech(b)).status).toBe(200)
    expect(await hasAudio('voices', a)).toBe(false)
    expect(await hasAudio('voices', b)).toBe(true)
    const again = await fetch(`${svc.baseUrl}/v1/audio/voices/${a}`, { method: 'DELETE', headers: auth() })
    expect(again.status).toBe(404)
  }, 60_000)

  it('deleting a consent revokes every dependent voice, removes their files, keeps other voices', async () => {
    const consent = (await createConsent()).body.id as string
    const bound = [
      (await createVoice({ consent })).body.id,
      (await createVoice({ consent })).body.id,
    ] as string[]
    const free = (await createVoice()).body.id as string
    const res = await fetch(`${svc.baseUrl}/v1/audio/voice_consents/${consent}`, {
      method: 'DELETE',
      headers: auth(),
    })
    expect(await res.json()).toEqual({ id: consent, deleted: true, object: 'audio.voice_consent' })
    for (const id of bound) {
      expect((await speech(id)).status).toBe(404)
      expect(await hasAudio('voices', id)).toBe(false)
    }
    expect(await hasAudio('consents', consent)).toBe(false)
    expect((await catalog()).some((v) => bound.includes(v.id))).toBe(false)
    expect((await speech(free)).status).toBe(200)
  }, 120_000)

  it('answers GET /v1/audio/voices with 405 and Allow: POST', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/audio/voices`, { headers: auth() })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  it('keeps ephemeral credentials and keys without voices:manage out', async () => {
    const ek = (
      await svc.service.keys.create({
        kind: 'ephemeral',
        org: 'test-org',
        permissions: ['voices:manage'],
      })
    ).key
    for (const res of [await createVoice({}, sampleWav, ek), await createConsent({}, consentWav, ek)]) {
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe('durable_api_key_required')
    }
    const list = await fetch(`${svc.baseUrl}/v1/audio/voice_consents`, { headers: auth(ek) })
    expect(list.status).toBe(403)
    const ttsOnly = (
      await svc.service.keys.create({
        kind: 'organization',
        org: 'test-org',
        permissions: ['tts:generate'],
      })
    ).key
    const res = await createVoice({}, sampleWav, ttsOnly)
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe('insufficient_permissions')
  }, 60_000)

  it('refuses bad samples clearly and stores nothing', async () => {
    const before = await stored('voices')
    const tooShort = await createVoice({}, wavFile(new Int16Array(12_000)))
    expect(tooShort.body.error).toMatchObject({ code: 'invalid_audio', param: 'audio_sample' })
    const noFile = await post('/v1/audio/voices', form({ name: 'x' }))
    expect(noFile.body).toMatchObject({ param: 'audio_sample' })
    const asText = await post('/v1/audio/voices', form({ name: 'x', audio_sample: 'not a file' }))
    expect(asText.body).toMatchObject({ param: 'audio_sample' })
    const huge = await createVoice({}, Buffer.alloc(10 * 1024 * 1024 + 1))
    expect(huge.status).toBe(413)
    expect(await stored('voices')).toEqual(before)
  }, 60_000)
})

describe('cloning queue and preparation', () => {
  it('answers 429 custom_voice_creation_busy when the queue is full or the wait too long', async () => {
    const tiny = await startSpeechService({
      synthesizer: synth,
      limits: { cloningConcurrency: 1, cloningQueue: 1, cloningWaitMs: 1 },
    })
    try {
      const send = () =>
        fetch(`${tiny.baseUrl}/v1/audio/voices`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tiny.apiKey}` },
          body: form({ name: 'n' }, { audio_sample: sampleWav }),
        })
      const results = await Promise.all([send(), send(), send()])
      const statuses = results.map((r) => r.status).sort()
      expect(statuses[0]).toBe(200)
      expect(statuses).toContain(429)
      const busy = results.find((r) => r.status === 429) as Response
      expect(busy.headers.get('retry-after')).toBeTruthy()
      expect(((await busy.json()) as { error: { code: string } }).error.code).toBe(
        'custom_voice_creation_busy',
      )
    } finally {
      await tiny.close()
    }
  }, 60_000)

  it('prepares a voice again after the engine version changes: 503 with Retry-After, then the same id works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'speech-prep-'))
    const first = await startSpeechService({ synthesizer: synth, dataDir, preparationVersion: 'old' })
    const created = await fetch(`${first.baseUrl}/v1/audio/voices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.apiKey}` },
      body: form({ name: 'n' }, { audio_sample: sampleWav }),
    })
    const id = ((await created.json()) as { id: string }).id
    const apiKey = first.apiKey
    await first.close()
    const second = await startSpeechService({
      synthesizer: synth,
      dataDir,
      preparationVersion: 'new',
      limits: { preparationDeadlineMs: 0 },
    })
    try {
      const call = () =>
        fetch(`${second.baseUrl}/v1/audio/speech`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'svc-tts-2-latest',
            input: 'Hi.',
            voice: { id },
            response_format: 'pcm',
          }),
        })
      const busy = await call()
      expect(busy.status).toBe(503)
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0)
      await expect.poll(async () => (await call()).status, { timeout: 10_000 }).toBe(200)
      expect(
        (
          await second.service.voices.store.getVoice(
            (await second.service.keys.authenticate(apiKey))?.ownerId ?? '',
            id,
          )
        )?.preparedVersion,
      ).toBe('new')
    } finally {
      await second.close()
      await speechTestDatabase(dataDir).drop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
