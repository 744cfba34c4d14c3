/**
 * `npm run bench:speech`: the six response formats side by side — time to first byte and to first audio byte (the
 * first byte past the container's header, server/engine/codecs/audio-start.ts) of one sentence, `ROUNDS` (default 9)
 * rounds with the formats in a rotating order so that load drifts fall on all alike, p50/p95 and the first request of
 * each format after the service started (the service's own first requests, whatever their format, pay for more than
 * an encoder, so three PCM requests go first and are printed apart); then seconds of audio per second of wall time for
 * 5,000 characters. Then 50 concurrent clients across 10 organizations for 60 s (`LOAD_SECONDS` to change): p50/p95
 * time to first byte, counts of 200/429/503, and slots still held at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RESPONSE_FORMATS, type ResponseFormat } from '../schema/index.ts'
import { audioStart } from '../server/engine/codecs/audio-start.ts'
import { sparesStarted } from '../server/engine/codecs/warm.ts'
import { createSpeechService } from '../server/speech/app.ts'
import { announceSmoke, count } from './smoke.ts'
import { percentile, summary } from './stats.ts'

const SENTENCE = 'The quick brown fox jumps over the lazy dog, then rests in the shade.'
const PARAGRAPH =
  'Speech Studio turns written scripts into spoken audio while the text is still being generated. It runs on one machine, needs no account and streams every format as it is produced. '
/** Smoke mode (`--smoke`, bench/smoke.ts): 2 rounds, 500 characters, 3 s of load by 10 clients. */
const LONG_CHARS = count(5000, 500)
const LONG = PARAGRAPH.repeat(Math.ceil(LONG_CHARS / PARAGRAPH.length)).slice(0, LONG_CHARS)
const LOAD_SECONDS = count(60, 3, 'LOAD_SECONDS')
const LOAD_CLIENTS = count(50, 10)

const dir = mkdtempSync(join(tmpdir(), 'bench-speech-'))
const speech = await createSpeechService({ dataDir: dir })
const base = await speech.app.listen({ port: 0, host: '127.0.0.1' })
const key = (await speech.keys.create({ kind: 'organization', org: 'bench' })).key

/**
 * Sends one request and reads it to the end: status, time to first byte, to first audio byte (the first byte past
 * the header of the response's format), total time and bytes.
 */
async function run(body: Record<string, unknown>, apiKey = key) {
  const started = performance.now()
  const res = await fetch(`${base}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: 'svc-tts-2-latest', voice: 'english_40', ...body }),
  })
  // An SSE stream's bytes are events, not the format's; only a raw stream has a header to look past.
  const format = body.stream_format === 'sse' ? undefined : (body.response_format as ResponseFormat)
  let firstByte = Number.NaN
  let firstAudio = Number.NaN
  let head: Buffer[] = []
  let bytes = 0
  if (res.body) {
    for await (const chunk of res.body) {
      const now = performance.now() - started
      if (Number.isNaN(firstByte)) firstByte = now
      bytes += (chunk as Uint8Array).length
      if (format && Number.isNaN(firstAudio)) {
        head.push(Buffer.from(chunk as Uint8Array))
        const start = audioStart(format, Buffer.concat(head))
        if (start !== undefined && bytes > start) {
          firstAudio = now
          head = []
        }
      }
    }
  }
  return { status: res.status, firstByte, firstAudio, total: performance.now() - started, bytes }
}

const ROUNDS = count(9, 2, 'ROUNDS')
announceSmoke('bench:speech')
console.log('bench:speech — one process, eSpeak pool of 4 workers')
// The service starts every encoder when it starts; give it the moment it takes, as a running service has had: the
// warm-up encodes, then the spares they leave behind (which on a loaded machine may take longer).
await new Promise((resolve) => setTimeout(resolve, 2000))
await sparesStarted()
// The service's first requests pay for what no encoder has to do with: the engine's first synthesis, the pipeline's
// code still being compiled (the first takes 200–400 ms here, the next ones up to 100 ms more than later ones). Sent
// apart, so each format's first request below shows its own start-up only.
const serviceFirst: number[] = []
for (let i = 0; i < 3; i++)
  serviceFirst.push((await run({ input: SENTENCE, response_format: 'pcm' })).firstByte)
/** The formats in the order of the table: the raw ones, then the compressed ones. */
const TABLE_ORDER: ResponseFormat[] = ['pcm', 'wav', 'mp3', 'opus', 'aac', 'flac']
const firstByte = new Map<string, number[]>(RESPONSE_FORMATS.map((f) => [f, []]))
const firstAudio = new Map<string, number[]>(RESPONSE_FORMATS.map((f) => [f, []]))
const firstRequest = new Map<string, { firstByte: number; firstAudio: number }>()
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < RESPONSE_FORMATS.length; i++) {
    const format = RESPONSE_FORMATS[(round + i) % RESPONSE_FORMATS.length] as string
    const r = await run({ input: SENTENCE, response_format: format })
    if (!firstRequest.has(format)) firstRequest.set(format, r)
    else {
      firstByte.get(format)?.push(r.firstByte)
      firstAudio.get(format)?.push(r.firstAudio)
    }
  }
}
const ms = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(0)} ms`
console.log(
  `\nthe service's first 3 requests (pcm, before the table): first byte ${serviceFirst.map(ms).join(', ')}`,
)
console.log(
  `\none sentence, streamed: time to first byte and to first audio byte (past the header); ${ROUNDS - 1} rounds after each format's first request`,
)
console.log(
  `${'format'.padEnd(8)}${'first byte p50/p95'.padStart(20)}${'first audio p50/p95'.padStart(21)}${'first request byte/audio'.padStart(26)}`,
)
for (const format of TABLE_ORDER) {
  const bytes = firstByte.get(format) ?? []
  const audio = firstAudio.get(format) ?? []
  const first = firstRequest.get(format)
  console.log(
    `${format.padEnd(8)}${`${ms(percentile(bytes, 50))} / ${ms(percentile(bytes, 95))}`.padStart(20)}${`${ms(percentile(audio, 50))} / ${ms(percentile(audio, 95))}`.padStart(21)}${`${ms(first?.firstByte)} / ${ms(first?.firstAudio)}`.padStart(26)}`,
  )
}

console.log(
  `\n${LONG_CHARS.toLocaleString('en')} characters, streamed: audio seconds per wall second, time to first byte and to first audio byte`,
)
const longPcm = await run({ input: LONG, response_format: 'pcm' })
const longSeconds = longPcm.bytes / 48_000
for (const format of TABLE_ORDER) {
  const r = await run({ input: LONG, response_format: format })
  console.log(
    `${format.padEnd(8)}${(longSeconds / (r.total / 1000)).toFixed(1).padStart(8)}×${ms(r.firstByte).padStart(10)}${ms(r.firstAudio).padStart(10)}`,
  )
}

// Load: 50 clients (10 in smoke mode) in 10 organizations, each sending sentence requests back to back.
const orgKeys = await Promise.all(
  Array.from(
    { length: 10 },
    async (_, i) => (await speech.keys.create({ kind: 'organization', org: `load-${i}` })).key,
  ),
)
const counts = new Map<number, number>()
const firstBytes: number[] = []
const deadline = performance.now() + LOAD_SECONDS * 1000
await Promise.all(
  Array.from({ length: LOAD_CLIENTS }, async (_, client) => {
    const apiKey = orgKeys[client % orgKeys.length] as string
    while (performance.now() < deadline) {
      const r = await run({ input: SENTENCE, response_format: 'pcm', stream_format: 'sse' }, apiKey)
      counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
      if (r.status === 200) firstBytes.push(r.firstByte)
      // A client backs off for Retry-After (1 s) when turned away, as the contract asks.
      else await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }),
)
console.log(`\nload: ${LOAD_CLIENTS} clients, 10 organizations, ${LOAD_SECONDS} s`)
console.log(`  time to first byte (200s): ${summary(firstBytes)}`)
console.log(
  `  responses: 200 × ${counts.get(200) ?? 0}, 429 × ${counts.get(429) ?? 0}, 503 × ${counts.get(503) ?? 0}`,
)
console.log(`  slots still held at the end: ${speech.ttsSlots.held()}`)
await speech.close()
rmSync(dir, { recursive: true, force: true })
