/**
 * `npm run bench:ws`: text-input WebSocket sessions fed like a typist or an LLM would — phrases of 50–500 characters,
 * each sent once the previous one has been spoken, after a pause. Prints, at 1, 2 and 10 concurrent sessions (each in its own organization, so slots do not
 * interfere), the delay from each phrase's arrival to its first audio delta and the largest gap between deltas.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSpeechService } from '../server/speech/app.ts'
import { connectWs } from '../server/testing/ws-client.ts'
import { announceSmoke, SMOKE } from './smoke.ts'
import { percentile, summary } from './stats.ts'

const ALL_PHRASES = [
  'Hello there.',
  'This is a short update on the project, written the way a person might type it out.',
  'We shipped the first part last week, and the feedback has been mostly positive, although a few people asked for clearer error messages and a faster start.',
  'Next, we will look at the long tail of problems that only appear when many people use the service at once, which is harder to reproduce on a laptop.',
  'Thanks for listening.',
  'One more thing: the team will meet on Thursday at ten, so please bring your notes, your questions and, if you can, a short demo of what you built this month, because demos make the discussion concrete and keep it short.',
].map((p) => `${p.padEnd(50, ' ')} `)
/** Smoke mode (`--smoke`, bench/smoke.ts): two phrases at 1 and 2 sessions. */
const PHRASES = SMOKE ? ALL_PHRASES.slice(0, 2) : ALL_PHRASES
const CONCURRENCY = SMOKE ? [1, 2] : [1, 2, 10]
const PAUSE_MS = 400

const dir = mkdtempSync(join(tmpdir(), 'bench-ws-'))
const speech = await createSpeechService({ dataDir: dir, limits: { ttsPerOwner: 2 } })
const base = (await speech.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws')

interface SessionResult {
  phraseDelays: number[]
  maxGap: number
}

/** A phrase's audio is over once no delta has come for this long (longer than any gap seen inside a phrase). */
const QUIET_MS = 1000

async function session(org: string): Promise<SessionResult> {
  const key = (await speech.keys.create({ kind: 'organization', org })).key
  const client = await connectWs(`${base}/v1/tts/realtime?voice=english_40`, key)
  if (!('socket' in client)) throw new Error(`refused: ${JSON.stringify(client.body)}`)
  let deltas: number[] = []
  let onDelta = () => {}
  client.socket.on('message', (data) => {
    if ((JSON.parse(String(data)) as { type: string }).type !== 'speech.audio.delta') return
    deltas.push(performance.now())
    onDelta()
  })
  /** Resolves once the phrase's audio has started and then stopped. */
  const spoken = () =>
    new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined
      onDelta = () => {
        clearTimeout(timer)
        timer = setTimeout(resolve, QUIET_MS)
      }
    })
  const phraseDelays: number[] = []
  let maxGap = 0
  // One phrase at a time, so every delta is known to belong to the phrase just sent.
  for (const phrase of PHRASES) {
    deltas = []
    const sent = performance.now()
    client.sendJson({ type: 'input_text.append', text: phrase })
    await spoken()
    const [first, ...rest] = deltas
    if (first === undefined) throw new Error('unreachable: spoken() waits for a delta')
    phraseDelays.push(first - sent)
    rest.forEach((t, i) => {
      maxGap = Math.max(maxGap, t - (deltas[i] ?? t))
    })
    await new Promise((r) => setTimeout(r, PAUSE_MS))
  }
  client.sendJson({ type: 'input_text.done' })
  await client.closed
  return { phraseDelays, maxGap }
}

announceSmoke('bench:ws')
console.log(
  `bench:ws — ${PHRASES.length} phrases of 50–${Math.max(...PHRASES.map((p) => p.length))} characters, ${PAUSE_MS} ms apart`,
)
for (const concurrency of CONCURRENCY) {
  const results = await Promise.all(
    Array.from({ length: concurrency }, (_, i) => session(`bench-${concurrency}-${i}`)),
  )
  const delays = results.flatMap((r) => r.phraseDelays)
  const gaps = results.map((r) => r.maxGap)
  console.log(
    `${String(concurrency).padStart(2)} session(s): phrase → first delta ${summary(delays)}; largest gap between deltas p50 ${percentile(gaps, 50).toFixed(0)} ms, max ${Math.max(...gaps).toFixed(0)} ms`,
  )
}
await speech.close()
rmSync(dir, { recursive: true, force: true })
