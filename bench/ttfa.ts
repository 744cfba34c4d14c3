/**
 * `npm run bench:ttfa`: 20 plays of one sentence. Prints p50/p95 of (a) the local service's time to first byte,
 * (b) the backend's added latency (time to first byte through the backend minus direct, measured in interleaved
 * pairs), and (c) click to the first non-zero sample leaving the worklet in Chromium.
 */
import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'
import { launchBenchBrowser } from './browser.ts'
import { startBenchStack } from './stack.ts'
import { summary } from './stats.ts'

const PLAYS = 20
const SENTENCE = 'The quick brown fox jumps over the lazy dog.'

execFileSync('node', ['scripts/build-if-needed.mjs'], { stdio: 'inherit' })
const stack = await startBenchStack({ staticDir: resolve('dist') })
const { speechUrl, apiKey, studioUrl, session } = stack

/** Milliseconds from sending the request to the first body bytes (the first SSE delta). */
async function timeToFirstByte(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ input: SENTENCE, response_format: 'pcm', stream_format: 'sse' }),
  })
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  await reader.read()
  const elapsed = performance.now() - started
  while (!(await reader.read()).done) {}
  return elapsed
}

const direct: number[] = []
const proxied: number[] = []
const added: number[] = []
await timeToFirstByte(`${speechUrl}/v1/audio/speech`, { authorization: `Bearer ${apiKey}` }) // warm-up
for (let i = 0; i < PLAYS; i++) {
  const d = await timeToFirstByte(`${speechUrl}/v1/audio/speech`, { authorization: `Bearer ${apiKey}` })
  const p = await timeToFirstByte(`${studioUrl}/api/v1/audio/speech`, { ...session })
  direct.push(d)
  proxied.push(p)
  added.push(p - d)
}

const browser = await launchBenchBrowser()
const page = await browser.newPage()
await page.goto(studioUrl)
await page.getByLabel('Text').fill(SENTENCE)
const clickToSound: number[] = []
for (let i = 0; i <= PLAYS; i++) {
  await page.getByRole('button', { name: 'Play' }).click()
  // Wait for this play to start, then to finish, so the previous play's "Finished" is not read.
  await page.waitForFunction(
    () => !document.querySelector('[role=status]')?.textContent?.includes('Finished'),
  )
  await page.getByRole('status').filter({ hasText: 'Finished' }).waitFor({ timeout: 30_000 })
  const ttfa = Number((await page.getByTestId('ttfa').textContent())?.replace(/\D/g, ''))
  if (i > 0) clickToSound.push(ttfa) // the first play also creates the AudioContext and loads the worklet
}
await browser.close()
await stack.close()

console.log(`bench:ttfa — ${PLAYS} plays of "${SENTENCE}"`)
console.log(`(a) service time to first byte (direct):       ${summary(direct)}`)
console.log(`    time to first byte through the backend:     ${summary(proxied)}`)
console.log(`(b) backend added latency (pairwise):           ${summary(added)}`)
console.log(`(c) click to first non-zero sample (Chromium):  ${summary(clickToSound, 0)}`)
