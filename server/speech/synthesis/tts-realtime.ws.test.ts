import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_APPEND_CHARS,
  MAX_SESSION_CHARS,
  MAX_TTS_FRAME_BYTES,
  PCM_DELTA_BYTES,
} from '../../../schema/index.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'
import { connectWs, type RefusedUpgrade, type WsTestClient } from '../../testing/ws-client.ts'

/** The text-input WebSocket over real loopback sockets (contract 4.10, 6.2, 6.3, 8; docs/realtime-tts.md). */
let svc: RunningService
let quick: RunningService

beforeAll(async () => {
  ;[svc, quick] = await Promise.all([
    startSpeechService(),
    startSpeechService({ limits: { ttsIdleMs: 400, ttsSessionMs: 6000 } }),
  ])
})
afterAll(async () => {
  await Promise.all([svc.close(), quick.close()])
})

function wsUrl(service: RunningService, query = '') {
  return `${service.baseUrl.replace('http', 'ws')}/v1/tts/realtime${query}`
}

async function open(query = '', key = svc.apiKey, service = svc): Promise<WsTestClient> {
  const client = await connectWs(wsUrl(service, query), key)
  if (!('socket' in client)) throw new Error(`refused: ${JSON.stringify(client)}`)
  return client
}

async function refused(query: string, key: string | null = svc.apiKey): Promise<RefusedUpgrade> {
  const result = await connectWs(wsUrl(svc, query), key)
  if ('socket' in result) throw new Error('the upgrade was accepted')
  return result
}

const isDelta = (m: Record<string, unknown>) => m.type === 'speech.audio.delta'
const isError = (code: string) => (m: Record<string, unknown>) =>
  m.type === 'error' && (m.error as { code: string }).code === code
const deltaBytes = (m: Record<string, unknown>) => Buffer.from(String(m.audio), 'base64').length

describe('upgrade refusals, before any socket exists', () => {
  it('refuses a format other than pcm with 400 unsupported_audio_format', async () => {
    const r = await refused('?response_format=mp3')
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ error: { code: 'unsupported_audio_format', param: 'response_format' } })
    expect(r.body.request_id).toMatch(/^req_/)
  })

  it('refuses a missing key with 401 and a key without tts:generate with 403', async () => {
    expect((await refused('', null)).status).toBe(401)
    const { key } = await svc.service.keys.create({
      kind: 'organization',
      org: 'test-org',
      permissions: ['audio:transcribe'],
    })
    expect((await refused('', key)).body).toMatchObject({ error: { code: 'insufficient_permissions' } })
  })

  it('refuses a custom voice on an ephemeral credential with 403 durable_api_key_required', async () => {
    const { key } = await svc.service.keys.create({ kind: 'ephemeral', org: 'test-org' })
    const r = await refused(`?voice=voice_${'a'.repeat(32)}`, key)
    expect(r.status).toBe(403)
    expect(r.body).toMatchObject({ error: { code: 'durable_api_key_required' } })
    // The same credential may use a built-in voice.
    const ok = await open('?voice=german_39', key)
    ok.socket.close()
  })

  it('validates decoding controls and speed like the HTTP body, at their edges', async () => {
    expect((await refused('?temperature=2.01')).body).toMatchObject({
      error: { code: 'invalid_request_error', param: 'temperature', message: expect.stringContaining('2') },
    })
    expect((await refused('?top_k=abc')).body).toMatchObject({ error: { param: 'top_k' } })
    expect((await refused('?speed=4.5')).status).toBe(400)
    const edge = await open('?temperature=2&top_p=0.5&top_k=0&min_p=0.5&max_new_tokens=12000&speed=4')
    edge.socket.close()
  })

  it('serves only the second-generation model and its voices', async () => {
    expect((await refused('?model=svc-tts-mini-0.8')).body).toMatchObject({ error: { param: 'model' } })
    expect((await refused('?voice=Bella')).body).toMatchObject({ error: { param: 'voice' } })
    expect((await refused('?unknown=1')).status).toBe(400)
  })
})

describe('a session', () => {
  it('speaks phrases while text is still arriving, in order, then done with usage and close 1000', async () => {
    const c = await open('?voice=english_40')
    c.sendJson({ type: 'input_text.append', text: 'The first phrase is complete. ' })
    // Audio for the first phrase flows before the client has sent anything else.
    await c.next(isDelta)
    c.sendJson({ type: 'input_text.append', text: 'And here comes a second one, ' })
    c.sendJson({ type: 'input_text.append', text: 'which ends here.' })
    c.sendJson({ type: 'input_text.done' })
    const done = await c.next((m) => m.type === 'speech.audio.done')
    const { code } = await c.closed
    expect(code).toBe(1000)
    const deltas = c.messages.filter(isDelta)
    const total = deltas.reduce((n, m) => n + deltaBytes(m), 0)
    expect(done.usage).toMatchObject({
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      input_characters: 75,
    })
    expect((done.usage as { audio_seconds: number }).audio_seconds).toBeCloseTo(total / 48_000, 3)
    // Full deltas are 4,800 bytes; only a phrase's last may be shorter (two phrases here, so at most two).
    expect(deltas.filter((m) => deltaBytes(m) !== PCM_DELTA_BYTES).length).toBeLessThanOrEqual(2)
    expect(deltas.every((m) => deltaBytes(m) % 2 === 0)).toBe(true)
    expect(c.messages.at(-1)?.type).toBe('speech.audio.done')
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('commit speaks buffered text that has no phrase ending yet', async () => {
    const c = await open()
    c.sendJson({ type: 'input_text.append', text: 'no punctuation at all' })
    await new Promise((r) => setTimeout(r, 300))
    expect(c.messages.filter(isDelta)).toHaveLength(0)
    c.sendJson({ type: 'input_text.commit' })
    await c.next(isDelta)
    c.socket.close()
  })

  it('answers malformed, binary and unknown messages with error events and stays usable', async () => {
    const c = await open()
    c.socket.send('{"type": ')
    c.socket.send(Buffer.from([1, 2, 3]))
    c.sendJson({ type: 'input_text.shout', text: 'x' })
    c.sendJson({ type: 'input_text.append', text: 42 })
    await c.next((m) => c.messages.filter(isError('invalid_message')).length === 4 && m.type === 'error')
    c.sendJson({ type: 'input_text.append', text: 'Still here.' })
    c.sendJson({ type: 'input_text.done' })
    await c.next((m) => m.type === 'speech.audio.done')
    expect((await c.closed).code).toBe(1000)
  })

  it('says a phrase with nothing speakable is so (nothing_to_speak), then speaks the next', async () => {
    const c = await open()
    c.sendJson({ type: 'input_text.append', text: '\u2588\u2588\u2588 \ue000. ' })
    const refused = await c.next(isError('nothing_to_speak'))
    expect(refused.error).toMatchObject({ param: 'input', message: expect.stringContaining('U+2588') })
    expect(c.messages.filter(isDelta)).toHaveLength(0)
    c.sendJson({ type: 'input_text.append', text: 'But this is heard.' })
    c.sendJson({ type: 'input_text.done' })
    await c.next((m) => m.type === 'speech.audio.done')
    expect(c.messages.filter(isDelta).length).toBeGreaterThan(0)
    expect((await c.closed).code).toBe(1000)
  })

  it('refuses appends after done but still finishes the audio', async () => {
    const c = await open()
    c.sendJson({ type: 'input_text.append', text: 'Last words.' })
    c.sendJson({ type: 'input_text.done' })
    c.sendJson({ type: 'input_text.append', text: 'More?' })
    await c.next(isError('input_already_done'))
    await c.next((m) => m.type === 'speech.audio.done')
  })

  it('frees its slot at once when the client disconnects mid-stream', async () => {
    const c = await open()
    c.sendJson({ type: 'input_text.append', text: 'A long passage that keeps the engine busy. '.repeat(20) })
    await c.next(isDelta)
    c.socket.terminate()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
    await expect.poll(() => svc.service.synthesizer.stats.busy, { timeout: 10_000 }).toBe(0)
  })

  it('answers an unknown saved voice with voice_not_found, then closes', async () => {
    const c = await open(`?voice=voice_${'b'.repeat(32)}`)
    await c.next(isError('voice_not_found'))
    expect((await c.closed).code).toBe(1008)
  })

  it("speaks with the owner's saved voice; another organization gets voice_not_found", async () => {
    const sample = wavFile(
      await spokenPcm(
        svc.service.synthesizer,
        'A saved voice speaks on the text socket as well as over HTTP.',
      ),
    )
    const form = new FormData()
    form.append('name', 'socket voice')
    form.append('audio_sample', new Blob([new Uint8Array(sample)]), 'sample.wav')
    const created = await fetch(`${svc.baseUrl}/v1/audio/voices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}` },
      body: form,
    })
    const { id } = (await created.json()) as { id: string }
    const mine = await open(`?voice=${id}`)
    mine.sendJson({ type: 'input_text.append', text: 'Hello from my own voice.' })
    mine.sendJson({ type: 'input_text.done' })
    await mine.next((m) => m.type === 'speech.audio.done')
    expect(mine.messages.filter(isDelta).length).toBeGreaterThan(0)

    const { key } = await svc.service.keys.create({ kind: 'organization', org: 'someone-else' })
    const theirs = await open(`?voice=${id}`, key)
    await theirs.next(isError('voice_not_found'))
    expect((await theirs.closed).code).toBe(1008)
  }, 60_000)
})

describe('limits, at their boundaries', () => {
  it(`accepts an append of ${MAX_APPEND_CHARS} characters and closes on one more`, async () => {
    const c = await open()
    c.sendJson({ type: 'input_text.append', text: 'a'.repeat(MAX_APPEND_CHARS) })
    c.sendJson({ type: 'input_text.append', text: 'a'.repeat(MAX_APPEND_CHARS + 1) })
    const err = await c.next(isError('append_too_large'))
    expect(c.messages.filter((m) => m.type === 'error')).toEqual([err])
    expect((await c.closed).code).toBe(1008)
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it(`accepts ${MAX_SESSION_CHARS} characters in a session and closes on one more`, async () => {
    const c = await open()
    const chunk = 'word '.repeat(MAX_APPEND_CHARS).slice(0, MAX_APPEND_CHARS)
    for (let sent = 0; sent < MAX_SESSION_CHARS; sent += MAX_APPEND_CHARS)
      c.sendJson({ type: 'input_text.append', text: chunk })
    c.sendJson({ type: 'input_text.commit' })
    await c.next(isDelta)
    expect(c.messages.some((m) => m.type === 'error')).toBe(false)
    c.sendJson({ type: 'input_text.append', text: 'x' })
    await c.next(isError('session_text_limit_exceeded'))
    expect((await c.closed).code).toBe(1008)
  })

  it(`accepts a ${MAX_TTS_FRAME_BYTES}-byte frame and closes with 1009 on a larger one`, async () => {
    const c = await open()
    const commit = '{"type":"input_text.commit"}'
    c.socket.send(commit.padEnd(MAX_TTS_FRAME_BYTES, ' '))
    c.socket.send(commit.padEnd(MAX_TTS_FRAME_BYTES + 1, ' '))
    await c.next(isError('frame_too_large'))
    expect(c.messages.filter((m) => m.type === 'error')).toHaveLength(1)
    expect((await c.closed).code).toBe(1009)
  })

  it('closes a session left idle after its audio went out', async () => {
    const c = await open('', quick.apiKey, quick)
    c.sendJson({ type: 'input_text.append', text: 'Then the client goes quiet.' })
    const sent = performance.now()
    await c.next(isError('idle_timeout'), 10_000)
    expect(performance.now() - sent).toBeGreaterThanOrEqual(400)
    // The idle clock does not cut off audio already being spoken.
    expect(c.messages.findIndex(isError('idle_timeout'))).toBe(c.messages.length - 1)
    expect(c.messages.filter(isDelta).length).toBeGreaterThan(5)
    expect((await c.closed).code).toBe(1008)
  })

  it('closes a session at its duration limit even while the client keeps sending', async () => {
    const c = await open('', quick.apiKey, quick)
    const timer = setInterval(() => c.sendJson({ type: 'input_text.commit' }), 100)
    await c.next(isError('session_duration_exceeded'), 15_000)
    clearInterval(timer)
    expect((await c.closed).code).toBe(1008)
    await expect.poll(() => quick.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('holds a TTS slot per session: a third concurrent session gets rate_limit_exceeded and 1008', async () => {
    const a = await open()
    const b = await open()
    const third = await open()
    await third.next(isError('rate_limit_exceeded'))
    expect((await third.closed).code).toBe(1008)
    // Slots are per organization: another organization still gets in.
    const other = (await svc.service.keys.create({ kind: 'organization', org: 'ws-other' })).key
    const d = await open('', other)
    await new Promise((r) => setTimeout(r, 100))
    expect(d.messages).toHaveLength(0)
    for (const c of [a, b, d]) c.socket.close()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })
})
