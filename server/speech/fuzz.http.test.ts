import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createEspeakSynthesizer, type Synthesizer } from '../engine/index.ts'
import { mulberry32 } from '../engine/markup/dsp.ts'
import { rawRequest, rawSocket, specErrorProblem } from '../testing/raw-http.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'

/**
 * A bounded fuzz of the speech service over real HTTP: a few hundred requests drawn from a seeded PRNG (the same ones
 * on every run; FUZZ_SEED picks others) over every route and body type — JSON of wrong types, cut short or huge;
 * multipart broken, cut short or with corrupt WAV/MP3/Ogg/FLAC bytes; wrong content types; paths with odd % escapes
 * and long ids; bad keys; WebSocket upgrades; clients that cut the connection. Requests go one at a time over one
 * keep-alive connection, so a refused request that leaves the connection stalled hangs the next one.
 *
 * Invariants: no 5xx, no
 * request left unanswered within its timeout, every 4xx in one of the contract's two error shapes (errors.ts), nothing
 * logged at error level, and afterwards every slot free and the service healthy.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2024)
const CASES = 480
const TIMEOUT_MS = 15_000

type Rng = () => number

const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1))
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[int(rng, 0, xs.length - 1)] as T
const chance = (rng: Rng, p: number) => rng() < p
const bytes = (rng: Rng, n: number) => Buffer.from(Array.from({ length: n }, () => int(rng, 0, 255)))

interface FuzzCase {
  kind: string
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** The client cuts the connection after this long: no answer is expected, the service must carry on. */
  abortAfterMs?: number
  /** A WebSocket upgrade instead of a plain request. */
  websocket?: boolean
}

let svc: RunningService
let synth: Synthesizer
const errorLogs: string[] = []

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  svc = await startSpeechService({
    synthesizer: synth,
    // Slots generous enough that an honest request never waits into a 503; 429s are fine, they are 4xx.
    limits: { ttsWaitMs: 20_000, cloningWaitMs: 20_000 },
    logger: {
      level: 'error',
      stream: { write: (line: string) => errorLogs.push(line) },
    },
  })
}, 60_000)
afterAll(async () => {
  await svc?.close()
  await synth?.close()
})

// ---- Values ----------------------------------------------------------------------------------------------------

/** Values of every JSON type, at their edges; strings stay short or go past every limit, never in between. */
function weirdValue(rng: Rng): unknown {
  switch (int(rng, 0, 14)) {
    case 0:
      return null
    case 1:
      return pick(rng, [true, false])
    case 2:
      return pick(rng, [0, -1, 1e308, -1e-308, 0.5, 12001, 2 ** 53 + 1, 50.5])
    case 3:
      return ''
    case 4:
      return 'x'.repeat(int(rng, 40_001, 60_000))
    case 5:
      return pick(rng, ['\u0000', '\ud800', '🎙️', 'ünïcödé', '<script>', '../../etc/passwd', '%00', 'NaN'])
    case 6:
      return []
    case 7:
      return [1, 'two', null]
    case 8:
      return {}
    case 9:
      return { id: pick(rng, ['voice_', `voice_${'f'.repeat(32)}`, 'x'.repeat(300)]) }
    case 10:
      return {
        reference_audio: {
          data: corruptAudio(rng).toString('base64'),
          format: pick(rng, ['wav', 'mp3', 'xyz']),
        },
      }
    case 11:
      return { __proto__: { admin: true }, constructor: { prototype: {} } }
    case 12:
      return pick(rng, ['Bella', 'eleanor_somber_female_32', 'german_39', 'nobody'])
    case 13:
      return '1.5'
    default:
      return -0
  }
}

const wavHeader = (dataBytes: number, rate = 16_000, channels = 1, bits = 16) => {
  const h = Buffer.alloc(44)
  h.write('RIFF', 0)
  h.writeUInt32LE(36 + dataBytes, 4)
  h.write('WAVEfmt ', 8)
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(channels, 22)
  h.writeUInt32LE(rate, 24)
  h.writeUInt32LE((rate * channels * bits) / 8, 28)
  h.writeUInt16LE((channels * bits) / 8, 32)
  h.writeUInt16LE(bits, 34)
  h.write('data', 36)
  h.writeUInt32LE(dataBytes, 40)
  return h
}

/** Audio files broken in their headers or bodies; short, so the odd one that decodes costs little to recognize. */
function corruptAudio(rng: Rng): Buffer {
  const payload = bytes(rng, int(rng, 0, 8000))
  switch (int(rng, 0, 9)) {
    case 0: {
      // A WAV header with one field set to nonsense.
      const h = wavHeader(payload.length)
      const [offset, size] = pick(rng, [
        [4, 4],
        [16, 4],
        [20, 2],
        [22, 2],
        [24, 4],
        [28, 4],
        [32, 2],
        [34, 2],
        [40, 4],
      ] as const)
      const value = pick(rng, [0, 1, 3, 0xffff, 0xffffffff, 7])
      if (size === 2) h.writeUInt16LE(value & 0xffff, offset)
      else h.writeUInt32LE(value >>> 0, offset)
      return Buffer.concat([h, payload])
    }
    case 1: {
      // A WAV header with random bytes flipped.
      const h = wavHeader(payload.length)
      for (let i = 0; i < int(rng, 1, 6); i++) h[int(rng, 0, 43)] = int(rng, 0, 255)
      return Buffer.concat([h, payload])
    }
    case 2:
      // A WAV cut inside its header.
      return wavHeader(payload.length).subarray(0, int(rng, 0, 43))
    case 3:
      // An MP3 frame sync followed by garbage.
      return Buffer.concat([Buffer.from([0xff, pick(rng, [0xfb, 0xf3, 0xe3]), int(rng, 0, 255), 0]), payload])
    case 4: {
      // An ID3 tag claiming to be huge.
      const tag = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0x7f, 0x7f, 0x7f, 0x7f])
      return Buffer.concat([tag, payload])
    }
    case 5:
      return Buffer.concat([Buffer.from('OggS'), Buffer.from([0, 2]), payload])
    case 6:
      return Buffer.concat([Buffer.from('fLaC'), payload])
    case 7:
      return Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from('ftypM4A '), payload])
    case 8:
      return Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), payload])
    default:
      // A valid short WAV of noise: it decodes, and goes on to whatever the route does with audio.
      return Buffer.concat([wavHeader(8000), bytes(rng, 8000)])
  }
}

// ---- Requests ----------------------------------------------------------------------------------------------------

const KEYLESS_PATHS = ['/health', '/openapi.json']
const ID_ROUTES = ['/v1/audio/voices/', '/v1/audio/voice_consents/', '/v1/audio/speech/continuations/']

function authHeader(rng: Rng): Record<string, string> {
  if (!chance(rng, 0.12)) return { authorization: `Bearer ${svc.apiKey}` }
  return pick<Record<string, string>>(rng, [
    {},
    { authorization: 'Bearer' },
    { authorization: `Basic ${svc.apiKey}` },
    { authorization: `Bearer ${svc.apiKey}x` },
    { authorization: `Bearer ek_${'A'.repeat(43)}` },
    { authorization: `Bearer ${'k'.repeat(6000)}` },
    { authorization: `bearer    ${svc.apiKey}   ` },
  ])
}

function speechJson(rng: Rng): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: pick(rng, ['svc-tts-mini-0.8', 'svc-tts-nano-0.8', 'svc-tts-2-latest']),
    input: pick(rng, ['Hi.', 'Hello there.', '[joyful] Yes! <laugh>', '(((Now))) then.']),
  }
  if (chance(rng, 0.3)) body.response_format = pick(rng, ['pcm', 'wav', 'mp3', 'opus', 'flac', 'aac', 'ogg'])
  if (chance(rng, 0.2)) body.stream_format = pick(rng, ['audio', 'sse', 'video'])
  if (chance(rng, 0.2)) body.stream = pick(rng, [true, false])
  if (chance(rng, 0.2)) body.speed = pick(rng, [0.25, 4, 1, 5, 0])
  for (const field of ['temperature', 'top_p', 'top_k', 'min_p', 'max_new_tokens', 'mode', 'voice']) {
    if (chance(rng, 0.1)) body[field] = weirdValue(rng)
  }
  return body
}

function clientSecretJson(rng: Rng): Record<string, unknown> {
  return {
    session: {
      type: pick(rng, ['transcription', 'realtime']),
      diarization: { enabled: pick(rng, [true, false]), max_speakers: pick(rng, [1, 20, 21, -3]) },
    },
    expires_after: { anchor: 'created_at', seconds: pick(rng, [10, 600, 7200, 9, 7201]) },
  }
}

/** Changes one field of a JSON body to a value of some other type, drops one, or adds one nobody asked for. */
function mutateJson(rng: Rng, body: Record<string, unknown>): Record<string, unknown> {
  const out = { ...body }
  const keys = Object.keys(out)
  switch (int(rng, 0, 3)) {
    case 0:
      out[pick(rng, keys)] = weirdValue(rng)
      break
    case 1:
      delete out[pick(rng, keys)]
      break
    case 2:
      out[pick(rng, ['unknown', '__proto__', 'constructor', 'voice', 'consent'])] = weirdValue(rng)
      break
    default:
      break
  }
  return out
}

interface Part {
  name: string
  value: Buffer
  filename?: string
  contentType?: string
}

const MULTIPART_FORMS: Record<string, (rng: Rng) => Part[]> = {
  '/v1/audio/speech': (rng) => [
    { name: 'model', value: Buffer.from(pick(rng, ['svc-tts-2-latest', 'svc-tts-mini-0.8'])) },
    { name: 'input', value: Buffer.from('Hi.') },
    { name: 'reference_transcript', value: Buffer.from('hello there') },
    { name: 'response_format', value: Buffer.from('pcm') },
    { name: 'reference_audio', value: corruptAudio(rng), filename: 'ref.wav', contentType: 'audio/wav' },
  ],
  '/v1/audio/voices': (rng) => [
    { name: 'name', value: Buffer.from('Fuzz') },
    { name: 'reference_transcript', value: Buffer.from('hello there') },
    ...(chance(rng, 0.3) ? [{ name: 'consent', value: Buffer.from(`cons_${'0'.repeat(32)}`) }] : []),
    { name: 'audio_sample', value: corruptAudio(rng), filename: 'sample.mp3', contentType: 'audio/mpeg' },
  ],
  '/v1/audio/voice_consents': (rng) => [
    { name: 'name', value: Buffer.from('Fuzz') },
    { name: 'language', value: Buffer.from(pick(rng, ['en-US', 'xx', 'en_us', ''])) },
    { name: 'recording', value: corruptAudio(rng), filename: 'consent.wav' },
  ],
  '/v1/audio/transcriptions': (rng) => [
    { name: 'model', value: Buffer.from(pick(rng, ['svc-stt-latest', 'whisper-1'])) },
    {
      name: 'response_format',
      value: Buffer.from(pick(rng, ['json', 'verbose_json', 'text', 'srt', 'xml'])),
    },
    ...(chance(rng, 0.3) ? [{ name: 'diarization', value: Buffer.from(pick(rng, ['true', 'maybe'])) }] : []),
    ...(chance(rng, 0.2)
      ? [{ name: 'num_speakers', value: Buffer.from(pick(rng, ['2', '0', '21', 'x'])) }]
      : []),
    ...(chance(rng, 0.2) ? [{ name: 'stream', value: Buffer.from(pick(rng, ['true', 'false'])) }] : []),
    { name: 'file', value: corruptAudio(rng), filename: 'a.ogg' },
  ],
  '/v1/realtime/calls': (rng) => [
    { name: 'sdp', value: Buffer.from(pick(rng, ['v=0\r\nm=audio 9 UDP 0\r\n', 'not sdp'])) },
    ...(chance(rng, 0.5)
      ? [{ name: 'session', value: Buffer.from(pick(rng, ['{}', '{"diarization":{"enabled":true}}', '{'])) }]
      : []),
  ],
}

/** Breaks a form: field swaps, duplicates, unknown names, files where text belongs, oversize text, odd names. */
function mutateParts(rng: Rng, parts: Part[]): Part[] {
  const out = parts.map((p) => ({ ...p }))
  const victim = pick(rng, out)
  switch (int(rng, 0, 8)) {
    case 0:
      out.splice(out.indexOf(victim), 1)
      break
    case 1:
      out.push({ ...victim })
      break
    case 2:
      out.push({
        name: pick(rng, ['unknown', 'voice', '__proto__', 'hasOwnProperty', '', 'ü', 'a"b']),
        value: Buffer.from('x'),
      })
      break
    case 3:
      victim.filename = victim.filename ? undefined : 'x.bin'
      break
    case 4:
      victim.value = Buffer.alloc(int(rng, 65_537, 80_000), 0x61)
      break
    case 5:
      for (let i = 0; i < 40; i++) out.push({ name: `f${i}`, value: Buffer.from('1') })
      break
    case 6:
      victim.contentType = pick(rng, ['application/json', 'text/plain; charset=utf-16', '\u0000'])
      break
    default:
      break
  }
  return out
}

function encodeParts(parts: Part[], boundary: string): Buffer {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`
    const type = p.contentType ? `\r\ncontent-type: ${p.contentType}` : ''
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}${type}\r\n\r\n`, 'utf8'))
    chunks.push(p.value, Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

/** A multipart body broken at the byte level: cut short, wrong boundary, garbage, no boundary at all. */
function breakMultipart(rng: Rng, body: Buffer, boundary: string): { body: Buffer; contentType: string } {
  const contentType = `multipart/form-data; boundary=${boundary}`
  switch (int(rng, 0, 6)) {
    case 0:
      return { body: body.subarray(0, int(rng, 0, body.length - 1)), contentType }
    case 1:
      return { body, contentType: 'multipart/form-data; boundary=zzz' }
    case 2:
      return { body, contentType: 'multipart/form-data' }
    case 3:
      return { body: Buffer.from(JSON.stringify({ input: 'Hi.' })), contentType }
    case 4:
      return { body: bytes(rng, int(rng, 1, 3000)), contentType }
    case 5: {
      const at = int(rng, 0, body.length)
      return { body: Buffer.concat([body.subarray(0, at), bytes(rng, 50), body.subarray(at)]), contentType }
    }
    default:
      return { body: Buffer.from(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1'), contentType }
  }
}

const jsonCase = (
  kind: string,
  path: string,
  rng: Rng,
  body: unknown,
  contentType = 'application/json',
): FuzzCase => ({
  kind,
  method: 'POST',
  path,
  headers: { ...authHeader(rng), 'content-type': contentType },
  body: Buffer.from(JSON.stringify(body)),
})

const GENERATORS: Record<string, (rng: Rng) => FuzzCase> = {
  'speech JSON, wrong types': (rng) =>
    jsonCase('speech JSON', '/v1/audio/speech', rng, mutateJson(rng, speechJson(rng))),
  'client secret JSON, wrong types': (rng) =>
    jsonCase(
      'client secret JSON',
      '/v1/realtime/client_secrets',
      rng,
      mutateJson(rng, clientSecretJson(rng)),
    ),
  'JSON cut short': (rng) => {
    const c = jsonCase(
      'JSON cut short',
      pick(rng, ['/v1/audio/speech', '/v1/realtime/client_secrets']),
      rng,
      speechJson(rng),
    )
    c.body = c.body?.subarray(0, int(rng, 0, (c.body?.length ?? 1) - 1))
    return c
  },
  'JSON huge': (rng) => {
    const c = jsonCase('JSON huge', pick(rng, ['/v1/audio/speech', '/v1/realtime/client_secrets']), rng, {
      input: 'y'.repeat(int(rng, 40_001, 400_000)),
    })
    return c
  },
  'JSON deeply nested': (rng) => ({
    ...jsonCase('JSON nested', '/v1/audio/speech', rng, null),
    body: Buffer.from(`${'['.repeat(int(rng, 1000, 50_000))}${']'.repeat(int(rng, 0, 10))}`),
  }),
  'multipart, fields broken': (rng) => {
    const path = pick(rng, Object.keys(MULTIPART_FORMS))
    const boundary = `----fuzz${int(rng, 0, 1e9)}`
    const parts = mutateParts(rng, (MULTIPART_FORMS[path] as (r: Rng) => Part[])(rng))
    return {
      kind: 'multipart fields',
      method: 'POST',
      path,
      headers: { ...authHeader(rng), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: encodeParts(parts, boundary),
    }
  },
  'multipart, bytes broken': (rng) => {
    const path = pick(rng, Object.keys(MULTIPART_FORMS))
    const boundary = `----fuzz${int(rng, 0, 1e9)}`
    const broken = breakMultipart(
      rng,
      encodeParts((MULTIPART_FORMS[path] as (r: Rng) => Part[])(rng), boundary),
      boundary,
    )
    return {
      kind: 'multipart bytes',
      method: 'POST',
      path,
      headers: { ...authHeader(rng), 'content-type': broken.contentType },
      body: broken.body,
    }
  },
  'corrupt audio, one-request clone in JSON': (rng) =>
    jsonCase('inline reference', '/v1/audio/speech', rng, {
      model: 'svc-tts-2-latest',
      input: 'Hi.',
      response_format: 'pcm',
      voice: {
        reference_audio: {
          data: corruptAudio(rng).toString('base64'),
          format: pick(rng, ['wav', 'mp3', 'ogg']),
        },
        reference_transcript: 'hello there',
      },
    }),
  'wrong content type': (rng) => ({
    kind: 'content type',
    method: 'POST',
    path: pick(rng, [...Object.keys(MULTIPART_FORMS), '/v1/realtime/client_secrets']),
    headers: {
      ...authHeader(rng),
      'content-type': pick(rng, [
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
        'multipart/mixed; boundary=a',
        'application/sdp',
        'audio/wav',
        '',
        ';;;',
        'application/json, text/plain',
      ]),
    },
    body: chance(rng, 0.5) ? Buffer.from('{"input":"Hi."}') : corruptAudio(rng),
  }),
  'SDP offers': (rng) => ({
    kind: 'sdp',
    method: 'POST',
    path: '/v1/realtime/calls',
    headers: { ...authHeader(rng), 'content-type': 'application/sdp' },
    body: Buffer.from(
      pick(rng, [
        'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n',
        'v=0\nm=video 9\n',
        '',
        'x'.repeat(70_000),
        '\u0000v=0',
      ]),
    ),
  }),
  'odd paths': (rng) => {
    const base = pick(rng, [
      '/v1/voices',
      '/v1/audio/speech',
      '/v1/audio/voice_consents',
      '/health',
      '/v1/audio/voices/',
    ])
    const suffix = pick(rng, [
      '%',
      '%zz',
      '%00',
      '%2F..%2F..',
      '%C0%AF',
      '%E2%82',
      '%25%',
      '/../../etc/passwd',
      '//',
      '?model=%',
      '?model=svc-tts-2-latest&model=x',
      '?model[]=x',
      `?${'a'.repeat(9000)}=1`,
      `/${'é'.repeat(200)}`,
      ';jsessionid=1',
      '#frag',
    ])
    return {
      kind: 'odd path',
      method: pick(rng, ['GET', 'POST', 'DELETE']),
      path: base + suffix,
      headers: authHeader(rng),
    }
  },
  'long and odd ids': (rng) => ({
    kind: 'id',
    method: pick(rng, ['DELETE', 'GET']),
    path:
      pick(rng, ID_ROUTES) +
      pick(rng, [
        'voice_'.padEnd(int(rng, 0, 400), 'a'),
        `cons_${'0'.repeat(32)}`,
        `voice_${'A'.repeat(32)}`,
        '%20',
        'x'.repeat(int(rng, 99, 5000)),
        encodeURIComponent('voice_\u0000'),
      ]),
    headers: authHeader(rng),
  }),
  'methods and queries': (rng) => ({
    kind: 'method',
    method: pick(rng, ['GET', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'DELETE', 'POST']),
    path: pick(rng, [
      ...KEYLESS_PATHS,
      '/v1/voices',
      '/v1/voices?model=svc-tts-mini-0.8',
      '/v1/voices?model=nope',
      '/v1/audio/voices',
      '/v1/audio/voice_consents?limit=0',
      '/v1/audio/voice_consents?limit=101&after=x',
      '/v1/audio/voice_consents?limit=abc',
      '/v1/audio/voice_consents?other=1',
      '/v1/audio/speech',
      '/v1/realtime/client_secrets',
      '/v1/tts/realtime',
      '/v1/realtime?intent=transcription',
      '/v1/stt/realtime',
      '/v1/nothing',
      '/',
    ]),
    headers: authHeader(rng),
  }),
  'WebSocket upgrades': (rng) => ({
    kind: 'websocket',
    method: 'GET',
    path: pick(rng, [
      `/v1/tts/realtime?model=svc-tts-2-latest&voice=${pick(rng, ['eleanor_somber_female_32', 'voice_x', `voice_${'0'.repeat(32)}`, '%'])}`,
      '/v1/tts/realtime?response_format=mp3',
      '/v1/tts/realtime?speed=abc&top_k=9999',
      '/v1/realtime?intent=transcription',
      '/v1/realtime?intent=other',
      '/v1/stt/realtime?model=nope',
      '/v1/stt/realtime?unknown=1',
    ]),
    headers: authHeader(rng),
    websocket: true,
  }),
  'aborted connections': (rng) => {
    const path = pick(rng, ['/v1/audio/speech', '/v1/audio/transcriptions', '/v1/audio/voice_consents'])
    const multipart = path !== '/v1/audio/speech' || chance(rng, 0.3)
    const boundary = 'cut'
    const body = multipart
      ? encodeParts((MULTIPART_FORMS[path] as (r: Rng) => Part[])(rng), boundary)
      : Buffer.from(
          JSON.stringify({ ...speechJson(rng), input: 'A sentence that takes a moment. '.repeat(8) }),
        )
    return {
      kind: 'aborted',
      method: 'POST',
      path,
      headers: {
        authorization: `Bearer ${svc.apiKey}`,
        'content-type': multipart ? `multipart/form-data; boundary=${boundary}` : 'application/json',
        // Sometimes a longer body is announced than is ever sent.
        'content-length': String(body.length + (chance(rng, 0.5) ? int(rng, 1, 50_000) : 0)),
      },
      body: chance(rng, 0.5) ? body : body.subarray(0, int(rng, 0, body.length)),
      abortAfterMs: int(rng, 0, 250),
    }
  },
}

// ---- Running and checking ----------------------------------------------------------------------------------------

interface Outcome {
  status: number
  body: Buffer
}

function websocketOutcome(c: FuzzCase): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${svc.baseUrl.replace('http', 'ws')}${c.path}`, { headers: c.headers })
    const timer = setTimeout(() => {
      socket.terminate()
      reject(new Error('no answer to the upgrade'))
    }, TIMEOUT_MS)
    socket.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => {
        clearTimeout(timer)
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) })
      })
    })
    socket.on('open', () => {
      clearTimeout(timer)
      socket.close()
      resolve({ status: 101, body: Buffer.alloc(0) })
    })
    socket.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
  })
}

function describeCase(c: FuzzCase): string {
  const body = c.body ? ` body ${c.body.length} B: ${c.body.subarray(0, 80).toString('latin1')}` : ''
  return `[${c.kind}] ${c.method} ${c.path.slice(0, 120)} ${JSON.stringify(c.headers['content-type'] ?? '')}${body}`
}

/** What is wrong with the answer, or null. */
function problemOf(c: FuzzCase, res: Outcome): string | null {
  if (res.status >= 500) {
    const body = res.body.toString('utf8')
    return `${res.status}: ${body.slice(0, 300)}`
  }
  if (res.status >= 400 && c.method !== 'HEAD') {
    let body: unknown
    try {
      body = JSON.parse(res.body.toString('utf8'))
    } catch {
      return `${res.status} without a JSON body: ${res.body.toString('utf8').slice(0, 200)}`
    }
    const problem = specErrorProblem(body)
    if (problem) return `${res.status} not in the contract's shape: ${problem}`
  }
  return null
}

describe('fuzz: the speech service over HTTP', () => {
  it(`answers ${CASES} seeded requests without a 5xx, a hang or an error outside the contract's shapes`, async () => {
    const rng = mulberry32(SEED)
    const names = Object.keys(GENERATORS)
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const failures: string[] = []
    const statuses = new Map<string, number>()
    let previous = '(none)'
    try {
      for (let i = 0; i < CASES; i++) {
        const c = (GENERATORS[pick(rng, names)] as (r: Rng) => FuzzCase)(rng)
        const label = `#${i} ${describeCase(c)}`
        try {
          if (c.abortAfterMs !== undefined) {
            const head = [
              `${c.method} ${c.path} HTTP/1.1`,
              'host: fuzz',
              ...Object.entries(c.headers).map(([k, v]) => `${k}: ${v}`),
            ]
            await rawSocket(
              svc.baseUrl,
              Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), c.body ?? Buffer.alloc(0)]),
              {
                destroyAfterMs: c.abortAfterMs,
              },
            )
            statuses.set('aborted', (statuses.get('aborted') ?? 0) + 1)
            previous = label
            continue
          }
          const res = c.websocket
            ? await websocketOutcome(c)
            : await rawRequest(svc.baseUrl, {
                method: c.method,
                path: c.path,
                headers: c.body ? { ...c.headers, 'content-length': String(c.body.length) } : c.headers,
                body: c.body,
                agent,
                timeoutMs: TIMEOUT_MS,
              })
          statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1)
          const problem = problemOf(c, res)
          if (problem) failures.push(`${label}\n    -> ${problem}`)
        } catch (err) {
          failures.push(`${label}\n    -> ${(err as Error).message} (the request before: ${previous})`)
        }
        previous = label
      }
    } finally {
      agent.destroy()
    }

    console.info(`fuzz seed ${SEED}: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)
    expect(failures, `seed ${SEED}`).toEqual([])
    // Afterwards: every slot free, the service answering, nothing logged as an error.
    await expect
      .poll(() => svc.service.ttsSlots.held() + svc.service.asrSlots.held(), { timeout: 15_000 })
      .toBe(0)
    expect((await fetch(`${svc.baseUrl}/health`)).status).toBe(200)
    expect(errorLogs.map((l) => l.slice(0, 500))).toEqual([])
  }, 180_000)
})
