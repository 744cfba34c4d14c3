import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_APPEND_AUDIO_BYTES,
  MAX_REALTIME_MESSAGE_BYTES,
  realtimeSessionSchema,
} from '../../../../schema/index.ts'
import { createSegmentedSpeakerTracker } from '../../../engine/diarization/online-segmented.ts'
import { createPyannoteSegmenter } from '../../../engine/segmentation/pyannote.ts'
import { type RunningService, startSpeechService } from '../../../testing/service.ts'
import { realSpeechAvailable, spokenDigits } from '../../../testing/speakers.ts'
import { spokenPcm } from '../../../testing/spoken-audio.ts'
import { connectWs, type RefusedUpgrade, type WsTestClient } from '../../../testing/ws-client.ts'
import type { SessionSpeakerTracker } from './stt-session.ts'

/** Realtime transcription over real loopback sockets with the real engines (contract 4.12, 6.3, 6.4, 8). */
let svc: RunningService
let switchedOff: RunningService
let flaky: RunningService
let modelless: RunningService
let sentence: Int16Array
let otherVoice: Int16Array
let longSentence: Int16Array
let longOtherVoice: Int16Array

/** A deployment whose speaker tracker stops working after its first turn: diarization degrades mid-session. */
async function trackerThatStops(opts: { maxSpeakers: number }): Promise<SessionSpeakerTracker> {
  const real = await createSegmentedSpeakerTracker(opts)
  let turns = 0
  return {
    assign: (audio) => {
      if (++turns > 1) throw new Error('speaker model crashed')
      return real.assign(audio)
    },
  }
}

/** A deployment whose segmentation model file is missing: sessions cannot have diarization. */
const trackerWithoutModel = (opts: { maxSpeakers: number }) =>
  createSegmentedSpeakerTracker({
    ...opts,
    segmenter: createPyannoteSegmenter({ modelPath: '/nonexistent/segmentation.onnx' }),
  })

beforeAll(async () => {
  ;[svc, switchedOff, flaky, modelless] = await Promise.all([
    startSpeechService(),
    startSpeechService({ diarizationEnabled: false }),
    startSpeechService({ speakerTracker: trackerThatStops }),
    startSpeechService({ speakerTracker: trackerWithoutModel }),
  ])
  sentence = await spokenPcm(
    svc.service.synthesizer,
    'The weather is sunny today and we will walk to the station.',
  )
  otherVoice = await spokenPcm(
    svc.service.synthesizer,
    'Please bring an umbrella because it may rain tonight.',
    'amber_warm_female_18',
  )
  longSentence = await spokenPcm(
    svc.service.synthesizer,
    'The weather is sunny today and we will walk to the station. After that we can have lunch by the river, and then we will take the train back home before it gets dark.',
  )
  longOtherVoice = await spokenPcm(
    svc.service.synthesizer,
    'Please bring an umbrella because it may rain tonight, and do not forget your keys on the kitchen table.',
    'amber_warm_female_18',
  )
}, 60_000)
afterAll(async () => {
  await Promise.all([svc.close(), switchedOff.close(), flaky.close(), modelless.close()])
})

const url = (service: RunningService, path = '/v1/realtime', query = '') =>
  `${service.baseUrl.replace('http', 'ws')}${path}${query}`

/** Every socket a test opened is closed after it, pass or fail, so no test inherits busy slots. */
const opened: WsTestClient[] = []
afterEach(() => {
  for (const client of opened.splice(0)) client.socket.terminate()
})

async function open(service = svc, key = service.apiKey, path = '/v1/realtime'): Promise<WsTestClient> {
  const client = await connectWs(url(service, path), key)
  if (!('socket' in client)) throw new Error(`refused: ${JSON.stringify(client)}`)
  opened.push(client)
  await client.next((m) => m.type === 'session.created')
  return client
}

async function refused(query: string, key: string | null = svc.apiKey): Promise<RefusedUpgrade> {
  const result = await connectWs(url(svc, '/v1/realtime', query), key)
  if ('socket' in result) throw new Error('the upgrade was accepted')
  return result
}

const silence = (seconds: number, rate = 24_000) => new Int16Array(Math.round(seconds * rate))

/** Appends PCM16 in 100 ms pieces, as a microphone would (without waiting). */
function appendPcm(client: WsTestClient, pcm: Int16Array, rate = 24_000) {
  const piece = rate / 10
  for (let i = 0; i < pcm.length; i += piece) {
    const part = pcm.subarray(i, i + piece)
    client.sendJson({
      type: 'input_audio_buffer.append',
      audio: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64'),
    })
  }
}

/** 24 kHz → 16 kHz by dropping every third sample (good enough for a test of the 16 kHz input path). */
function to16k(pcm: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor((pcm.length * 2) / 3))
  for (let i = 0, j = 0; j < out.length; i += 3) {
    out[j++] = pcm[i] as number
    if (j < out.length) out[j++] = pcm[i + 1] as number
  }
  return out
}

const ofType = (type: string) => (m: Record<string, unknown>) => m.type === type
const isError = (code: string) => (m: Record<string, unknown>) =>
  m.type === 'error' && (m.error as { code: string }).code === code

describe('upgrade', () => {
  it('refuses a missing key (401), a key without audio:transcribe (403) and bad query parameters (400)', async () => {
    expect((await refused('', null)).status).toBe(401)
    const { key } = await svc.service.keys.create({
      kind: 'organization',
      org: 'test-org',
      permissions: ['tts:generate'],
    })
    expect((await refused('', key)).body).toMatchObject({ error: { code: 'insufficient_permissions' } })
    expect((await refused('?intent=conversation')).status).toBe(400)
    expect((await refused('?model=other')).body).toMatchObject({ error: { param: 'model' } })
    expect((await refused('?voice=x')).status).toBe(400)
  })

  it('opens on both paths with session.created describing the defaults', async () => {
    for (const path of ['/v1/realtime?intent=transcription', '/v1/stt/realtime']) {
      const client = await open(svc, svc.apiKey, path)
      const created = client.messages[0] as Record<string, unknown>
      const session = realtimeSessionSchema.parse(created.session)
      expect(session.audio.input.format).toEqual({ type: 'audio/pcm', rate: 24000 })
      expect(session.audio.input.turn_detection?.type).toBe('server_vad')
      expect(session.diarization).toBeUndefined()
      expect(created.event_id).toMatch(/^event_/)
      client.socket.close()
    }
  })
})

describe('session.update and errors', () => {
  it('answers session.update with session.updated, and a bad one with an error event naming the field', async () => {
    const client = await open()
    client.sendJson({
      type: 'session.update',
      session: { audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    })
    const updated = await client.next(ofType('session.updated'))
    expect((updated.session as { audio: { input: { format: unknown } } }).audio.input.format).toEqual({
      type: 'audio/pcm',
      rate: 16000,
    })
    client.sendJson({
      type: 'session.update',
      session: { audio: { input: { format: { type: 'audio/pcm', rate: 44100 } } } },
    })
    const err = await client.next(ofType('error'))
    expect(err.error).toMatchObject({
      type: 'invalid_request_error',
      param: 'session.audio.input.format.rate',
    })
    client.sendJson({ type: 'response.create' })
    await client.next(isError('unknown_event_type'))
    client.socket.send('not json')
    await client.next(isError('invalid_json'))
    client.sendJson({ type: 'input_audio_buffer.append', audio: '***' })
    await client.next(isError('invalid_value'))
    client.sendJson({ type: 'input_audio_buffer.commit' })
    await client.next(isError('input_audio_buffer_commit_empty'))
    client.sendJson({ type: 'input_audio_buffer.clear' })
    await client.next(ofType('input_audio_buffer.cleared'))
    client.socket.close()
  })

  it('accepts an append of exactly 15 MiB of decoded audio and refuses 2 bytes more', async () => {
    const client = await open()
    client.sendJson({
      type: 'session.update',
      session: { audio: { input: { format: { type: 'audio/pcm', rate: 16000 }, turn_detection: null } } },
    })
    await client.next(ofType('session.updated'))
    const exact = Buffer.alloc(MAX_APPEND_AUDIO_BYTES).toString('base64')
    client.sendJson({ type: 'input_audio_buffer.append', audio: exact })
    client.sendJson({ type: 'input_audio_buffer.clear' })
    await client.next(ofType('input_audio_buffer.cleared'), 60_000)
    expect(client.messages.filter(ofType('error'))).toEqual([])
    client.sendJson({
      type: 'input_audio_buffer.append',
      audio: Buffer.alloc(MAX_APPEND_AUDIO_BYTES + 2).toString('base64'),
    })
    const err = await client.next(isError('audio_append_too_large'), 60_000)
    expect(err.error).toMatchObject({ param: 'audio' })
    client.socket.close()
  }, 120_000)

  it('accepts a message of exactly 24 MiB and closes with 1009 on one byte more', async () => {
    const client = await open()
    client.sendJson({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } })
    await client.next(ofType('session.updated'))
    const head = '{"type":"input_audio_buffer.append","audio":"AAAA"'
    const message = (size: number) => `${head}${' '.repeat(size - head.length - 1)}}`
    client.socket.send(message(MAX_REALTIME_MESSAGE_BYTES))
    client.sendJson({ type: 'input_audio_buffer.clear' })
    await client.next(ofType('input_audio_buffer.cleared'), 60_000)
    client.socket.send(message(MAX_REALTIME_MESSAGE_BYTES + 1))
    expect((await client.closed).code).toBe(1009)
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  }, 120_000)
})

describe('transcription', () => {
  it('transcribes a committed buffer without turn detection: committed, deltas, completed', async () => {
    const client = await open()
    client.sendJson({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } })
    await client.next(ofType('session.updated'))
    appendPcm(client, sentence)
    client.sendJson({ type: 'input_audio_buffer.commit' })
    const committed = await client.next(ofType('input_audio_buffer.committed'))
    expect(committed.previous_item_id).toBeNull()
    const completed = await client.next(
      ofType('conversation.item.input_audio_transcription.completed'),
      60_000,
    )
    expect(completed.item_id).toBe(committed.item_id)
    expect(String(completed.transcript).length).toBeGreaterThan(5)
    const deltas = client.messages.filter(ofType('conversation.item.input_audio_transcription.delta'))
    expect(deltas.map((d) => d.delta).join('')).toBe(completed.transcript)
    for (const d of deltas) expect(d.item_id).toBe(committed.item_id)
    expect(completed.audio_start_ms).toBe(0)
    expect(Math.abs(Number(completed.audio_end_ms) - (sentence.length / 24_000) * 1000)).toBeLessThan(50)
    // No diarization was asked for: no speakers events.
    expect(client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))).toEqual([])
    client.socket.close()
  }, 90_000)

  it('ends turns at pauses with server VAD, and reads 16 kHz input', async () => {
    const client = await open()
    client.sendJson({
      type: 'session.update',
      session: { audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
    })
    await client.next(ofType('session.updated'))
    const pcm16 = to16k(sentence)
    appendPcm(client, silence(0.5, 16_000), 16_000)
    appendPcm(client, pcm16, 16_000)
    appendPcm(client, silence(1.5, 16_000), 16_000)
    appendPcm(client, pcm16, 16_000)
    appendPcm(client, silence(1.5, 16_000), 16_000)
    const started = await client.next(ofType('input_audio_buffer.speech_started'), 30_000)
    const stopped = await client.next(ofType('input_audio_buffer.speech_stopped'), 30_000)
    expect(stopped.item_id).toBe(started.item_id)
    expect(Number(started.audio_start_ms)).toBeLessThan(600)
    expect(Number(stopped.audio_end_ms)).toBeGreaterThan(Number(started.audio_start_ms) + 1000)
    await expect
      .poll(
        () => client.messages.filter(ofType('conversation.item.input_audio_transcription.completed')).length,
        {
          timeout: 60_000,
        },
      )
      .toBe(2)
    const committed = client.messages.filter(ofType('input_audio_buffer.committed'))
    expect(committed).toHaveLength(2)
    expect(committed[1]?.previous_item_id).toBe(committed[0]?.item_id)
    client.socket.close()
  }, 90_000)
})

describe('diarization (6.4)', () => {
  async function diarizedSession(service: RunningService, maxSpeakers?: number) {
    const client = await open(service)
    client.sendJson({
      type: 'session.update',
      session: {
        diarization: { enabled: true, ...(maxSpeakers === undefined ? {} : { max_speakers: maxSpeakers }) },
      },
    })
    const updated = await client.next(ofType('session.updated'))
    return { client, diarization: (updated.session as { diarization: Record<string, unknown> }).diarization }
  }

  it('reports status active with the applied max_speakers, clamped with max_speakers_requested', async () => {
    const { client, diarization } = await diarizedSession(svc, 0)
    expect(diarization).toEqual({
      enabled: true,
      status: 'active',
      max_speakers: 1,
      max_speakers_requested: 0,
    })
    client.sendJson({ type: 'session.update', session: { diarization: { max_speakers: 4 } } })
    const next = await client.next(
      (m) => m.type === 'session.updated' && m !== client.messages.find(ofType('session.updated')),
    )
    expect((next.session as { diarization: unknown }).diarization).toEqual({
      enabled: true,
      status: 'active',
      max_speakers: 4,
    })
    client.socket.close()
  })

  it('sends a speakers event for each finished turn, after its words', async () => {
    const { client } = await diarizedSession(svc, 4)
    appendPcm(client, silence(0.3))
    appendPcm(client, sentence)
    appendPcm(client, silence(1.5))
    const speakers = await client.next(ofType('conversation.item.input_audio_transcription.speakers'), 60_000)
    const completed = client.messages.find(ofType('conversation.item.input_audio_transcription.completed'))
    expect(completed).toBeDefined()
    expect(client.messages.indexOf(completed as never)).toBeLessThan(
      client.messages.indexOf(speakers as never),
    )
    expect(speakers.item_id).toBe(completed?.item_id)
    expect(speakers.text).toBe(completed?.transcript)
    expect(speakers.speaker).toBe('speaker_0')
    expect(speakers.attribution).toBe('endpoint')
    const segments = speakers.segments as Array<{
      speaker: string
      segment_start_ms: number
      segment_end_ms: number
    }>
    expect(segments.length).toBeGreaterThan(0)
    for (const s of segments) {
      expect(s.speaker).toMatch(/^speaker_\d+$/)
      expect(s.segment_start_ms).toBeGreaterThanOrEqual(Number(completed?.audio_start_ms))
      expect(s.segment_end_ms).toBeLessThanOrEqual(Number(completed?.audio_end_ms))
      expect(s.segment_end_ms).toBeGreaterThan(s.segment_start_ms)
    }
    client.socket.close()
  }, 90_000)

  it('ends the turn at a detected speaker change (attribution commit), without a pause', async () => {
    const { client } = await diarizedSession(svc, 4)
    try {
      appendPcm(client, silence(0.3))
      appendPcm(client, sentence)
      appendPcm(client, otherVoice)
      appendPcm(client, silence(1.5))
      await expect
        .poll(
          () => client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers')).length,
          {
            timeout: 90_000,
          },
        )
        .toBe(2)
      const committed = client.messages.filter(ofType('input_audio_buffer.committed'))
      const speakers = client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))
      expect(speakers.map((m) => m.item_id)).toEqual(committed.map((m) => m.item_id))
      expect(speakers.map((m) => m.attribution)).toEqual(['commit', 'endpoint'])
      expect(speakers[0]?.speaker).toBe('speaker_0')
      expect(speakers[1]?.speaker).toBe('speaker_1')
      // The second item starts where the first ends, on the session clock.
      const completed = client.messages.filter(
        ofType('conversation.item.input_audio_transcription.completed'),
      )
      expect(completed[1]?.audio_start_ms).toBe(completed[0]?.audio_end_ms)
      // The change lies near the real one (the first voice ends 3.3 s into the session).
      expect(
        Math.abs(Number(completed[0]?.audio_end_ms) - (300 + (sentence.length / 24_000) * 1000)),
      ).toBeLessThan(1000)
    } finally {
      client.socket.close()
    }
  }, 120_000)

  it('cuts a long turn at a speaker change while the second speaker is still talking', async () => {
    const { client } = await diarizedSession(svc, 4)
    appendPcm(client, silence(0.3))
    appendPcm(client, longSentence)
    appendPcm(client, longOtherVoice)
    appendPcm(client, silence(1.5))
    await expect
      .poll(
        () => client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers')).length,
        {
          timeout: 90_000,
        },
      )
      .toBe(2)
    const committed = client.messages.filter(ofType('input_audio_buffer.committed'))
    const stopped = client.messages.find(ofType('input_audio_buffer.speech_stopped'))
    // The first item was committed at the change, before the pause that ended the second.
    expect(client.messages.indexOf(committed[0] as never)).toBeLessThan(
      client.messages.indexOf(stopped as never),
    )
    expect(stopped?.item_id).toBe(committed[1]?.item_id)
    const speakers = client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))
    expect(speakers.map((m) => [m.speaker, m.attribution])).toEqual([
      ['speaker_0', 'commit'],
      ['speaker_1', 'endpoint'],
    ])
    const completed = client.messages.filter(ofType('conversation.item.input_audio_transcription.completed'))
    const change = 300 + (longSentence.length / 24_000) * 1000
    expect(Math.abs(Number(completed[0]?.audio_end_ms) - change)).toBeLessThan(1500)
  }, 120_000)

  it('reports unavailable when the deployment switched diarization off; transcription goes on', async () => {
    const { client, diarization } = await diarizedSession(switchedOff)
    expect(diarization).toMatchObject({ enabled: true, status: 'unavailable' })
    client.sendJson({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } })
    appendPcm(client, sentence)
    client.sendJson({ type: 'input_audio_buffer.commit' })
    await client.next(ofType('conversation.item.input_audio_transcription.completed'), 60_000)
    expect(client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))).toEqual([])
    client.socket.close()
  }, 90_000)

  it.skipIf(!realSpeechAvailable())(
    'names two real people taking turns, the one who returns again, and cuts at a change without a pause',
    async () => {
      const { client } = await diarizedSession(svc, 4)
      client.sendJson({
        type: 'session.update',
        session: { audio: { input: { format: { type: 'audio/pcm', rate: 16000 } } } },
      })
      await client.next(
        (m) => m.type === 'session.updated' && client.messages.filter(ofType('session.updated')).length > 1,
      )
      const pcm = (samples: Float32Array) => Int16Array.from(samples, (v) => Math.round(v * 32767))
      const pause = silence(1.5, 16_000)
      // FSDD takes: every digit by one person, each time another sitting. The third turn runs into the fourth.
      const turns = [
        await spokenDigits('george', [0]),
        await spokenDigits('jackson', [0]),
        await spokenDigits('george', [1]),
        await spokenDigits('jackson', [1]),
      ]
      appendPcm(client, silence(0.3, 16_000), 16_000)
      for (const [i, turn] of turns.entries()) {
        appendPcm(client, pcm(turn), 16_000)
        if (i !== 2) appendPcm(client, pause, 16_000)
      }
      const speakersEvents = () =>
        client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))
      await expect.poll(() => speakersEvents().length, { timeout: 90_000 }).toBe(4)
      expect(speakersEvents().map((m) => [m.speaker, m.attribution])).toEqual([
        ['speaker_0', 'endpoint'],
        ['speaker_1', 'endpoint'],
        ['speaker_0', 'commit'],
        ['speaker_1', 'endpoint'],
      ])
      // The cut lies near where george's second take ends.
      const completed = client.messages.filter(
        ofType('conversation.item.input_audio_transcription.completed'),
      )
      const georgeEnds =
        300 + ((turns[0]?.length ?? 0) + (turns[1]?.length ?? 0) + (turns[2]?.length ?? 0)) / 16 + 2 * 1500
      expect(Math.abs(Number(completed[2]?.audio_end_ms) - georgeEnds)).toBeLessThan(750)
      client.socket.close()
    },
    150_000,
  )

  it('reports unavailable when the segmentation model cannot be loaded; transcription goes on', async () => {
    const { client, diarization } = await diarizedSession(modelless)
    expect(diarization).toMatchObject({ enabled: true, status: 'unavailable' })
    client.sendJson({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } })
    appendPcm(client, sentence)
    client.sendJson({ type: 'input_audio_buffer.commit' })
    const completed = await client.next(
      ofType('conversation.item.input_audio_transcription.completed'),
      60_000,
    )
    expect(String(completed.transcript).length).toBeGreaterThan(5)
    expect(client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers'))).toEqual([])
    client.socket.close()
  }, 90_000)

  it('degrades mid-session: earlier turns keep their labels, later ones are unattributed, words go on', async () => {
    const { client } = await diarizedSession(flaky)
    client.sendJson({ type: 'session.update', session: { audio: { input: { turn_detection: null } } } })
    for (let turn = 0; turn < 2; turn++) {
      appendPcm(client, sentence)
      client.sendJson({ type: 'input_audio_buffer.commit' })
    }
    await expect
      .poll(
        () => client.messages.filter(ofType('conversation.item.input_audio_transcription.speakers')).length,
        {
          timeout: 90_000,
        },
      )
      .toBe(2)
    const [first, second] = client.messages.filter(
      ofType('conversation.item.input_audio_transcription.speakers'),
    )
    expect(first).toMatchObject({ speaker: 'speaker_0', attribution: 'endpoint' })
    expect(second).toMatchObject({ speaker: null, attribution: 'unattributed' })
    expect(String(second?.text).length).toBeGreaterThan(5)
    const degraded = client.messages.filter(
      (m) =>
        m.type === 'session.updated' &&
        (m.session as { diarization?: { status: string } }).diarization?.status === 'degraded',
    )
    expect(degraded).toHaveLength(1)
    expect(
      client.messages.filter(ofType('conversation.item.input_audio_transcription.completed')),
    ).toHaveLength(2)
    client.socket.close()
  }, 120_000)
})

describe('capacity (6.3, 8)', () => {
  it('completes the upgrade of a sixth socket, sends rate_limit_exceeded and closes it with 1000', async () => {
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
    const sockets = []
    for (let i = 0; i < 5; i++) sockets.push(await open())
    const sixth = await connectWs(url(svc), svc.apiKey)
    if (!('socket' in sixth)) throw new Error('the upgrade was refused')
    const err = await sixth.next(ofType('error'))
    expect(err.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' })
    expect((await sixth.closed).code).toBe(1000)
    expect(sixth.messages.filter(ofType('session.created'))).toEqual([])

    sockets[0]?.socket.close()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(4)
    sockets[0] = await open()
    for (const s of sockets) s.socket.terminate()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  })
})
