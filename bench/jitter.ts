/**
 * `npm run bench:jitter`: the studio's worklet player beside a reference player built the way the common open-source
 * realtime consoles build theirs (bench/jitter/reference-processor.ts: plays what it has, no prebuffer, zeros when
 * empty), in one Chromium page, fed the same 24 kHz PCM16 stream in the service's 4,800-byte chunks with the same
 * injected arrival times (bench/jitter/schedule.ts; jitter seeded through mulberry32).
 *
 * The stream is real speech made by the local engine (server/engine `speak`, eSpeak NG, as the service renders it).
 * The page is a Vite build of bench/jitter/index.html, so it runs src/audio's PcmPlayer and its worklet as the app
 * bundles them. Each player's output is recorded by a tap worklet beside its speaker connection; underruns, silence
 * and clicks are read from that recording (bench/jitter/analyse.ts), latency is first chunk handed over → the tap's
 * first non-zero sample, stamped on the main thread (the same message path for both players).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, resolve } from 'node:path'
import { build } from 'vite'
import { concat } from '../core/concat.ts'
import { PCM_DELTA_BYTES } from '../schema/index.ts'
import { createEspeakSynthesizer } from '../server/engine/espeak/pool.ts'
import { mulberry32 } from '../server/engine/markup/dsp.ts'
import { speak } from '../server/engine/speak.ts'
import { voiceParamsFor } from '../server/engine/voice-params.ts'
import { launchBenchBrowser } from './browser.ts'
import { CLICK_THRESHOLD } from './jitter/analyse.ts'
import type { PlayerFigures, RunFigures } from './jitter/page.ts'
import { SCENARIOS } from './jitter/schedule.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'
import { percentile } from './stats.ts'

/** Smoke mode (`--smoke`): one run of each scenario on a short line. */
const RUNS = count(5, 1, 'RUNS')
const PORT = Number(process.env.JITTER_PORT ?? 8681)
/** Ours plays with the app's prebuffer (src/state/playback.ts) unless PREBUFFER_MS says otherwise. */
const PREBUFFER_OVERRIDE = process.env.PREBUFFER_MS ? Number(process.env.PREBUFFER_MS) : null
const TEXT = SMOKE
  ? 'A short line for the smoke run.'
  : 'The studio plays speech while it is still arriving. Each piece comes over the network a little early or a ' +
    'little late, and the player has to hide that from the listener.'
const CHUNK_FRAMES = PCM_DELTA_BYTES / 2
const CHUNK_MS = (CHUNK_FRAMES / 24_000) * 1000

/** The line as the service renders it, trimmed to its first and last sound, with no exact zeros (see analyse.ts). */
async function speech(): Promise<Int16Array> {
  const synth = await createEspeakSynthesizer({ workers: 1 })
  const parts: Int16Array[] = []
  const voice = voiceParamsFor('narrator_02')
  if (!voice) throw new Error('narrator_02 is not a built-in voice.')
  for await (const chunk of speak(synth, {
    text: TEXT,
    voice,
    language: 'en-US',
    speed: 1,
    markup: false,
    maxNewTokens: null,
  }))
    parts.push(chunk)
  await synth.close()
  const pcm = concat(parts, Int16Array)
  const audible = (s: number) => Math.abs(s) >= 33 // -60 dBFS, the player's own threshold of silence
  let first = 0
  while (first < pcm.length && !audible(pcm[first] ?? 0)) first++
  let last = pcm.length - 1
  while (last > first && !audible(pcm[last] ?? 0)) last--
  // One LSB (-90 dBFS) in place of digital silence: inaudible, and it lets a gap in the output mean an underrun.
  return pcm.slice(first, last + 1).map((s) => (s === 0 ? 1 : s))
}

const pcm = await speech()
const outDir = mkdtempSync(join(tmpdir(), 'bench-jitter-'))
await build({
  configFile: false,
  root: resolve('bench/jitter'),
  base: './',
  // The page imports the app's prebuffer from src/state/playback.ts, whose other imports only warn about directives.
  logLevel: 'error',
  build: { outDir, emptyOutDir: true },
})
writeFileSync(join(outDir, 'speech.pcm'), pcm)

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.pcm': 'application/octet-stream',
}
const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname
  const file = join(outDir, path === '/' ? 'index.html' : path)
  if (!file.startsWith(outDir)) return void res.writeHead(404).end()
  try {
    const body = readFileSync(file)
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body)
  } catch {
    res.writeHead(404).end()
  }
})
await new Promise<void>((ready) => server.listen(PORT, '127.0.0.1', ready))

const browser = await launchBenchBrowser()
const page = await browser.newPage()
page.on('pageerror', (err) => console.error('page error:', err.message))
await page.goto(`http://127.0.0.1:${PORT}/`)
const setup = await page.evaluate(([frames, prebuffer]) => window.jitterBench.setup(frames, prebuffer), [
  CHUNK_FRAMES,
  PREBUFFER_OVERRIDE,
] as const)

const results = SCENARIOS.map(() => [] as RunFigures[])
for (let run = 0; run < RUNS; run++)
  for (const [s, scenario] of SCENARIOS.entries()) {
    const arrivals = scenario.arrivals(setup.chunks, CHUNK_MS, mulberry32(1000 * (run + 1) + s))
    results[s]?.push(await page.evaluate((a) => window.jitterBench.run(a), arrivals))
  }

await browser.close()
server.close()
rmSync(outDir, { recursive: true, force: true })

announceSmoke('bench:jitter')
console.log(
  `\nJitter: ${(pcm.length / 24_000).toFixed(1)} s of speech (local engine, narrator_02) in ${setup.chunks} chunks ` +
    `of ${CHUNK_MS} ms, RUNS=${RUNS} per scenario, one Chromium page.\n` +
    `ours: src/audio PcmPlayer, ${setup.prebufferMs} ms prebuffer` +
    (setup.earliestMs < setup.prebufferMs
      ? `, started from ${setup.earliestMs} ms when audio arrives well ahead `
      : ' ') +
    `(${setup.prebufferMs === setup.appPrebufferMs ? "the app's" : `the app's is ${setup.appPrebufferMs} ms`}), context at ${setup.oursRate} Hz; ` +
    `reference: no prebuffer, zeros when empty, context at ${setup.referenceRate} Hz.\n` +
    `Underruns and silence are totals over the runs, read from each player's rendered output (the player's own ` +
    `count in brackets); clicks are gap edges jumping by more than ${CLICK_THRESHOLD}; latency is first chunk ` +
    `arrival → first non-zero output sample; stretched is the audio ours added by slowing playback to ride out late ` +
    `arrivals (src/audio/period-stretch.ts), summed over the runs.\n`,
)
const header = `${'scenario'.padEnd(30)}${'player'.padEnd(11)}${'underruns'.padEnd(12)}${'silence ms'.padEnd(12)}${'clicks'.padEnd(8)}${'stretched ms'.padEnd(14)}latency p50 / p95 ms`
console.log(header)
console.log('-'.repeat(header.length))
for (const [s, scenario] of SCENARIOS.entries()) {
  for (const who of ['ours', 'reference'] as const) {
    const figures: PlayerFigures[] = (results[s] ?? []).map((r) => r[who])
    const sum = (f: (x: PlayerFigures) => number) => figures.reduce((n, x) => n + f(x), 0)
    const latency = figures.map((x) => x.latencyMs)
    console.log(
      (who === 'ours' ? scenario.label : '').padEnd(30) +
        who.padEnd(11) +
        `${sum((x) => x.gaps)} (${sum((x) => x.ownUnderruns)})`.padEnd(12) +
        sum((x) => x.silenceMs)
          .toFixed(0)
          .padEnd(12) +
        String(sum((x) => x.clicks)).padEnd(8) +
        sum((x) => x.stretchedMs)
          .toFixed(0)
          .padEnd(14) +
        `${percentile(latency, 50).toFixed(0)} / ${percentile(latency, 95).toFixed(0)}`,
    )
  }
}
// What was played must be the whole stream plus the silence and the stretch: a shortfall would mean lost audio.
const sourceMs = (pcm.length / 24_000) * 1000
const lost = results
  .flat()
  .flatMap((r) => [r.ours, r.reference])
  .filter((f) => Math.abs(f.spanMs - f.silenceMs - f.stretchedMs - sourceMs) > 15)
if (lost.length > 0)
  console.log(
    `\nNote: ${lost.length} outputs whose sound does not add up to the source's ${sourceMs.toFixed(0)} ms.`,
  )
