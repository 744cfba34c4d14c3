import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { explainError } from '../../../src/api/error-text.ts'
import { LiveSpeechError } from '../../../src/api/live-speech.ts'
import {
  EMPTY_LIVE_TEXT,
  editLiveText,
  LIVE_IDLE_MS,
  type LiveText,
  takePhrases,
  takeRest,
} from '../../../src/pages/script/live-text.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'
import { connectWs, type WsTestClient } from '../../testing/ws-client.ts'

/**
 * Live mode end to end: the live box's phrase cutting (src/pages/script/live-text.ts) drives the text-input socket
 * through the studio backend's bridge to the real service, as the browser does, and audio comes back while the text
 * is still being written.
 */

let svc: RunningService
let studio: RunningStudio
let designer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  designer = await studio.signInAs('designer')
})
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

/** The query connectLiveSpeech builds for these settings (contract 4.10). */
const QUERY = new URLSearchParams({
  model: 'svc-tts-2-latest',
  voice: 'english_40',
  response_format: 'pcm',
  mode: 'stable',
})

async function openLive(): Promise<WsTestClient> {
  const ws = await connectWs(`${studio.base.replace('http', 'ws')}/api/v1/tts/realtime?${QUERY}`, null, {
    cookie: designer.cookie,
  })
  if (!('socket' in ws)) throw new Error(`refused: ${ws.status} ${JSON.stringify(ws.body)}`)
  return ws
}

const isDelta = (m: Record<string, unknown>) => m.type === 'speech.audio.delta'
const deltaBytes = (m: Record<string, unknown>) => Buffer.from(String(m.audio), 'base64').length

/** Types `text` key by key on a virtual clock (60 ms a key), sending each append the live box releases. */
function typeInto(ws: WsTestClient, text: string, from: { live: LiveText; now: number }, sent: string[]) {
  let { live, now } = from
  for (const ch of text) {
    now += 60
    const step = takePhrases(editLiveText(live, live.text + ch, now), now)
    live = step.live
    for (const append of step.appends) {
      ws.sendJson({ type: 'input_text.append', text: append })
      sent.push(append)
    }
  }
  return { live, now }
}

const OPENING =
  'The lighthouse keeper climbed the stairs at dusk, as he had done every evening for thirty years. ' +
  'He counted the steps, one hundred and twelve of them, and the count always came out the same. '
const CLOSING = 'Below him the harbour lights came on one by one, and a ferry turned slowly for home'

describe('live mode through the backend', () => {
  it('speaks the phrases written so far before the text is finished, and completes after done', async () => {
    const ws = await openLive()
    const sent: string[] = []
    let typed = typeInto(ws, OPENING, { live: EMPTY_LIVE_TEXT, now: 0 }, sent)
    expect(sent.length).toBeGreaterThanOrEqual(2)
    for (const append of sent) expect(append.trim().length).toBeGreaterThanOrEqual(50)

    // The writer is still writing: nothing more is sent, no input_text.done, and audio already arrives.
    await ws.next(isDelta)
    typed = typeInto(ws, CLOSING, typed, sent)
    expect(typed.live.sent).toBeLessThan(typed.live.text.length)
    const deltasBeforeDone = ws.messages.filter(isDelta).length
    expect(deltasBeforeDone).toBeGreaterThan(0)
    expect(ws.messages.some((m) => m.type === 'speech.audio.done')).toBe(false)

    // Finish: the rest, then done.
    const rest = takeRest(typed.live)
    for (const append of rest.appends) {
      ws.sendJson({ type: 'input_text.append', text: append })
      sent.push(append)
    }
    ws.sendJson({ type: 'input_text.done' })
    const done = await ws.next((m) => m.type === 'speech.audio.done', 60_000)
    expect((await ws.closed).code).toBe(1000)

    // Everything written went out exactly once, and all of it was spoken.
    expect(sent.join('')).toBe(OPENING + CLOSING)
    const usage = done.usage as { input_characters: number; audio_seconds: number }
    expect(usage.input_characters).toBe((OPENING + CLOSING).length)
    const deltas = ws.messages.filter(isDelta)
    expect(deltas.length).toBeGreaterThan(deltasBeforeDone)
    expect(usage.audio_seconds).toBeCloseTo(deltas.reduce((n, m) => n + deltaBytes(m), 0) / 48_000, 2)
    expect(ws.messages.at(-1)?.type).toBe('speech.audio.done')
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  }, 90_000)

  it('speaks a short sentence once the writer pauses, before Finish', async () => {
    const ws = await openLive()
    const sent: string[] = []
    const typed = typeInto(ws, 'Short line.', { live: EMPTY_LIVE_TEXT, now: 0 }, sent)
    expect(sent).toEqual([])
    const paused = takePhrases(typed.live, typed.now + LIVE_IDLE_MS)
    expect(paused.appends).toEqual(['Short line.'])
    ws.sendJson({ type: 'input_text.append', text: 'Short line.' })
    await ws.next(isDelta)
    expect(ws.messages.some((m) => m.type === 'speech.audio.done')).toBe(false)
    ws.sendJson({ type: 'input_text.done' })
    const done = await ws.next((m) => m.type === 'speech.audio.done')
    expect((done.usage as { input_characters: number }).input_characters).toBe('Short line.'.length)
    expect((await ws.closed).code).toBe(1000)
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })

  it('reports capacity as rate_limit_exceeded, then 1008, which the studio explains', async () => {
    const held = [await openLive(), await openLive()]
    const third = await openLive()
    const error = await third.next((m) => m.type === 'error')
    const { code, message } = error.error as { code: string; message: string }
    expect(code).toBe('rate_limit_exceeded')
    expect((await third.closed).code).toBe(1008)
    // The live box rejects with this error, which the studio explains as a passing capacity problem.
    expect(explainError(new LiveSpeechError(code, message))).toMatchObject({
      title: expect.stringMatching(/busy/),
      retryable: true,
    })
    for (const ws of held) ws.socket.close()
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
  })
})
