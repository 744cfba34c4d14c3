import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { integratedLoudness } from '../../../core/loudness.ts'
import { CONTENT_TYPES } from '../../../schema/index.ts'
import { audioStart } from '../../engine/codecs/audio-start.ts'
import { TARGET_LUFS } from '../../engine/index.ts'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'

/** Every response format over real HTTP, decoded by the real ffmpeg (contract 2.6). */
let svc: RunningService
const dir = mkdtempSync(join(tmpdir(), 'formats-'))
const INPUT = 'Every format must decode to the same speech.'
/** About 20 s of speech: more than the engine's first chunks. */
const LONG_INPUT = 'A longer text is streamed while the rest of it is still being spoken. '.repeat(4)
let pcmSeconds = 0

beforeAll(async () => {
  svc = await startSpeechService()
  const pcm = await speech({ response_format: 'pcm' })
  pcmSeconds = (await pcm.arrayBuffer()).byteLength / 48_000
})
afterAll(async () => {
  await svc.close()
  rmSync(dir, { recursive: true, force: true })
})

function speech(fields: Record<string, unknown>) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
    body: JSON.stringify({ input: INPUT, voice: 'Bella', ...fields }),
  })
}

/** What ffmpeg decodes from the file: its codec, and the length in seconds of its audio at 24 kHz mono. */
function decode(bytes: Buffer, name: string): { codec: string; seconds: number; channels: number } {
  const file = join(dir, name)
  writeFileSync(file, bytes)
  const probe = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', file], { encoding: 'utf8' }),
  ) as { streams: Array<{ codec_name: string; channels: number }> }
  const raw = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '24000', '-'],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  )
  const stream = probe.streams[0]
  return { codec: stream?.codec_name ?? '', channels: stream?.channels ?? 0, seconds: raw.length / 48_000 }
}

const CODECS = { mp3: 'mp3', opus: 'opus', aac: 'aac', flac: 'flac', wav: 'pcm_s16le' } as const

/** A streamed body as the client's reads, and which read first reached past the format's header (-1: none). */
async function readAll(res: Response, format: keyof typeof CODECS) {
  const reads: Buffer[] = []
  let firstAudioRead = -1
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    reads.push(Buffer.from(chunk))
    if (firstAudioRead >= 0) continue
    const prefix = Buffer.concat(reads)
    const start = audioStart(format, prefix)
    if (start !== undefined && prefix.length > start) firstAudioRead = reads.length - 1
  }
  return { reads, firstAudioRead }
}

describe('response formats', () => {
  for (const [format, codec] of Object.entries(CODECS)) {
    it(`streams ${format} with its content type, decodable to the same length as pcm`, async () => {
      const res = await speech({ response_format: format })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe(CONTENT_TYPES[format as keyof typeof CODECS])
      const decoded = decode(Buffer.from(await res.arrayBuffer()), `stream.${format}`)
      expect(decoded.codec).toBe(codec)
      expect(decoded.channels).toBe(1)
      // mp3 and aac containers cannot mark the encoder delay, so they run up to ~0.1 s long.
      expect(Math.abs(decoded.seconds - pcmSeconds)).toBeLessThan(0.12)
    })

    it(`sends a long text's first ${format} audio before the response ends, and it decodes`, async () => {
      // Order, not speed: the read that first reaches past the header (the first frame or page of audio) is not the
      // read that ends the response.
      const { reads, firstAudioRead } = await readAll(
        await speech({ input: LONG_INPUT, response_format: format }),
        format as keyof typeof CODECS,
      )
      expect(firstAudioRead).toBeGreaterThanOrEqual(0)
      expect(firstAudioRead).toBeLessThan(reads.length - 1)
      const decoded = decode(Buffer.concat(reads), `long.${format}`)
      expect(decoded.codec).toBe(codec)
      expect(decoded.seconds).toBeGreaterThan(10)
    })

    it(`sends ${format} as SSE deltas that concatenate into one playable file`, async () => {
      const events = await readSse(await speech({ response_format: format, stream_format: 'sse' }))
      expect(events.at(-1)?.type).toBe('speech.audio.done')
      const bytes = Buffer.concat(
        events
          .filter((e) => e.type === 'speech.audio.delta')
          .map((e) => Buffer.from(String(e.audio), 'base64')),
      )
      const decoded = decode(bytes, `sse.${format}`)
      expect(decoded.codec).toBe(codec)
      expect(Math.abs(decoded.seconds - pcmSeconds)).toBeLessThan(0.12)
    })
  }

  it('sends an opus sentence page by page, not all of it once encoded', async () => {
    // libopus runs on the service's own thread (codecs/opus.ts): the first audio page must reach the socket while
    // the rest of the sentence is still being encoded, not with it. The client here shares that thread, so it can
    // only read what the service let go of between frames.
    const { reads, firstAudioRead } = await readAll(await speech({ response_format: 'opus' }), 'opus')
    expect(firstAudioRead).toBeGreaterThanOrEqual(0)
    const total = reads.reduce((sum, r) => sum + r.length, 0)
    const upToFirstAudio = reads.slice(0, firstAudioRead + 1).reduce((sum, r) => sum + r.length, 0)
    expect(upToFirstAudio).toBeLessThan(total / 2)
    expect(decode(Buffer.concat(reads), 'sentence.opus').codec).toBe('opus')
  })

  it('normalizes a stream: false take to −16 LUFS, which the stream of the same text is not', async () => {
    const body = { model: 'svc-tts-2-latest', voice: 'nora_soft_female_22', response_format: 'pcm' }
    const streamed = new Int16Array(await (await speech(body)).arrayBuffer())
    const whole = new Int16Array(await (await speech({ ...body, stream: false })).arrayBuffer())
    expect(Math.abs(integratedLoudness(whole, 24_000) - TARGET_LUFS)).toBeLessThan(0.5)
    expect(Math.abs(integratedLoudness(streamed, 24_000) - TARGET_LUFS)).toBeGreaterThan(1)
  })

  it('returns one complete file for stream: false in a compressed format', async () => {
    const res = await speech({
      model: 'svc-tts-2-latest',
      voice: 'bella_10',
      response_format: 'flac',
      stream: false,
    })
    expect(res.status).toBe(200)
    const file = Buffer.from(await res.arrayBuffer())
    const decoded = decode(file, 'whole.flac')
    expect(decoded.codec).toBe('flac')
    // A complete file states its length, so players show its duration: STREAMINFO's 36-bit total samples.
    expect(file.toString('latin1', 0, 4)).toBe('fLaC')
    const totalSamples = ((file[21] as number) & 0x0f) * 2 ** 32 + file.readUInt32BE(22)
    expect(totalSamples).toBe(Math.round(decoded.seconds * 24_000))
  })
})
