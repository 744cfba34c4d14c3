/**
 * `npm run bench:speech`: the six response formats side by side — time to first byte of one sentence, `ROUNDS`
 * (default 9) rounds with the formats in a rotating order so that load drifts fall on all alike, p50/p95 and the very
 * first request of each format after the service started; then seconds of audio per second of wall time for 5,000
 * characters. Then 50 concurrent clients across 10 organizations for 60 s (`LOAD_SECONDS` to change): p50/p95 time
 * to first byte, counts of 200/429/503, and slots still held at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RESPONSE_FORMATS } from '../schema/index.ts'
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

/** Sends one request and reads it to the end: status, time to first byte, total time and PCM-equivalent seconds. */
async function run(body: Record<string, unknown>, apiKey = key) {
  const started = performance.now()
  const res = await fetch(`${base}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: 'svc-tts-2-latest', voice: 'english_40', ...body }),
  })
  let firstByte = Number.NaN
  let bytes = 0
  if (res.body) {
    for await (const chunk of res.body) {
      if (Number.isNaN(firstByte)) firstByte = performance.now() - started
      bytes += (chunk as Uint8Array).length
    }
  }
  return { status: res.status, firstByte, total: performance.now() - started, bytes }
}

const ROUNDS = count(9, 2, 'ROUNDS')
announceSmoke('bench:speech')
console.log('bench:speech — one process, eSpeak pool of 4 workers')
// The service starts every encoder when it starts; give it the moment it takes, as a running service has had.
await new Promise((resolve) => setTimeout(resolve, 2000))
const firstByte = new Map<string, number[]>(RESPONSE_FORMATS.map((f) => [f, []]))
const firstRequest = new Map<string, number>()
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < RESPONSE_FORMATS.length; i++) {
    const format = RESPONSE_FORMATS[(round + i) % RESPONSE_FORMATS.length] as string
    const r = await run({ input: SENTENCE, response_format: format })
    if (!firstRequest.has(format)) firstRequest.set(format, r.firstByte)
    else firstByte.get(format)?.push(r.firstByte)
  }
}
console.log(
  `\ntime to first byte, one sentence, streamed; ${ROUNDS - 1} rounds after each format's first request`,
)
console.log(`${'format'.padEnd(8)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'first request'.padStart(15)}`)
for (const format of RESPONSE_FORMATS) {
  const values = firstByte.get(format) ?? []
  console.log(
    `${format.padEnd(8)}${`${percentile(values, 50).toFixed(0)} ms`.padStart(8)}${`${percentile(values, 95).toFixed(0)} ms`.padStart(8)}${`${(firstRequest.get(format) ?? Number.NaN).toFixed(0)} ms`.padStart(15)}`,
  )
}

console.log(
  `\n${LONG_CHARS.toLocaleString('en')} characters, streamed: audio seconds per wall second, time to first byte`,
)
const longPcm = await run({ input: LONG, response_format: 'pcm' })
const longSeconds = longPcm.bytes / 48_000
for (const format of RESPONSE_FORMATS) {
  const r = await run({ input: LONG, response_format: format })
  console.log(
    `${format.padEnd(8)}${(longSeconds / (r.total / 1000)).toFixed(1).padStart(8)}×${`${r.firstByte.toFixed(0)} ms`.padStart(10)}`,
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
