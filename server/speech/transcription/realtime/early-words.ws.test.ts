import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createPocketSphinxRecognizer } from '../../../engine/recognition/index.ts'
import { type RunningService, startSpeechService } from '../../../testing/service.ts'
import { spokenPcm } from '../../../testing/spoken-audio.ts'
import { connectWs, type WsTestClient } from '../../../testing/ws-client.ts'

/**
 * Words while a turn goes on (issue 20, docs/transcription.md "Live words"): a long turn streamed at about real time
 * gets deltas before its speech has stopped, with speaker attribution on or off, and they still concatenate to the
 * item's transcript (no word sent twice) — from the streaming decoder, and where it cannot run, by decoding again.
 */
let svc: RunningService
/** The same service without a streaming decoder (a machine without libpocketsphinx-dev). */
let redecoding: RunningService
const redecodingRecognizer = createPocketSphinxRecognizer({ streaming: false })
let speech: Int16Array

/** Streaming decoders this test process started (native/ps-stream.c). */
const streamDecoders = () =>
  execFileSync('ps', ['-o', 'args', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('ps-stream-'))

beforeAll(async () => {
  svc = await startSpeechService()
  redecoding = await startSpeechService({ recognizer: redecodingRecognizer })
  speech = await spokenPcm(
    svc.service.synthesizer,
    'The weather is sunny today and we will walk to the station. After that we can have lunch by the river, and then we will take the train back home before it gets dark.',
  )
}, 60_000)
afterAll(async () => {
  await Promise.all([svc?.close(), redecoding?.close()])
  await redecodingRecognizer.close()
})

const ofType = (type: string) => (m: Record<string, unknown>) => m.type === type
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Appends 24 kHz PCM16 in 100 ms pieces, one every `everyMs`. */
async function stream(client: WsTestClient, pcm: Int16Array, everyMs: number) {
  const piece = 2400
  for (let i = 0; i < pcm.length; i += piece) {
    const part = pcm.subarray(i, i + piece)
    client.sendJson({
      type: 'input_audio_buffer.append',
      audio: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64'),
    })
    await sleep(everyMs)
  }
}

describe('live words', () => {
  it.each([
    ['streaming, without diarization', false, true],
    ['streaming, with diarization', true, true],
    ['decoding again, without diarization', false, false],
  ])(
    'sends words of a turn before its speech stops, concatenating to the transcript (%s)',
    async (_, diarize, streaming) => {
      const service = streaming ? svc : redecoding
      const client = await connectWs(`${service.baseUrl.replace('http', 'ws')}/v1/realtime`, service.apiKey)
      if (!('socket' in client)) throw new Error('refused')
      try {
        await client.next(ofType('session.created'))
        if (diarize) {
          client.sendJson({
            type: 'session.update',
            session: { diarization: { enabled: true, max_speakers: 4 } },
          })
          await client.next(ofType('session.updated'))
        }
        // 100 ms of audio every 100 ms: real time.
        await stream(client, new Int16Array(2400 * 3), 100)
        await stream(client, speech, 100)
        await stream(client, new Int16Array(2400 * 15), 100)
        const completed = await client.next(
          ofType('conversation.item.input_audio_transcription.completed'),
          60_000,
        )
        const item = completed.item_id
        const stoppedAt = client.messages.findIndex(
          (m) => m.type === 'input_audio_buffer.speech_stopped' && m.item_id === item,
        )
        const deltas = client.messages.filter(
          (m) => m.type === 'conversation.item.input_audio_transcription.delta' && m.item_id === item,
        )
        expect(stoppedAt).toBeGreaterThan(0)
        // Words came while the speaker was still talking.
        expect(client.messages.indexOf(deltas[0] as never)).toBeLessThan(stoppedAt)
        expect(deltas.map((d) => d.delta).join('')).toBe(completed.transcript)
        expect(String(completed.transcript).split(' ').length).toBeGreaterThan(15)
        const segments = completed.segments as Array<{
          text: string
          segment_start_ms: number
          segment_end_ms: number
        }>
        expect(segments.map((s) => s.text).join(' ')).toBe(completed.transcript)
        for (let i = 0; i < segments.length; i++) {
          const s = segments[i] as (typeof segments)[number]
          expect(s.segment_start_ms).toBeGreaterThanOrEqual(Number(completed.audio_start_ms))
          expect(s.segment_end_ms).toBeLessThanOrEqual(Number(completed.audio_end_ms))
          if (i > 0)
            expect(s.segment_start_ms).toBeGreaterThanOrEqual((segments[i - 1] as typeof s).segment_end_ms)
        }
        if (diarize) {
          const speakers = await client.next(ofType('conversation.item.input_audio_transcription.speakers'))
          expect(speakers.item_id).toBe(item)
          expect(speakers.text).toBe(completed.transcript)
        }
        expect(streamDecoders()).toHaveLength(streaming ? 1 : 0)
      } finally {
        client.socket.close()
      }
      // The session's decoder ends with it.
      await vi.waitFor(() => expect(streamDecoders()).toEqual([]), { timeout: 10_000 })
    },
    120_000,
  )
})
