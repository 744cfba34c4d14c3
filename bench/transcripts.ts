/**
 * `npm run bench:transcripts`: the review page in Chromium with a 2-hour, 5,000-turn transcript. Prints the time to
 * render it and to make it interactive, frame times while the list follows playback, and memory in use.
 *
 * The transcript is generated (no service involved) and loaded straight into the studio's store, as a saved upload
 * with its peaks measured, with a 2-hour 8 kHz WAV as its audio; the page opens it from the saved list like a reviewer.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Readable } from 'node:stream'
import type { StoredResult } from '../schema/index.ts'
import { TranscriptStore } from '../server/studio/transcripts/store.ts'
import { floatToPcm16Wav } from '../server/wav.ts'
import { peakCountFor, peaksOfSamples } from '../src/audio/peaks.ts'
import { launchBenchBrowser } from './browser.ts'
import { announceSmoke, count, SMOKE } from './smoke.ts'
import { startBenchStack } from './stack.ts'
import { percentile } from './stats.ts'

/** Smoke mode (`--smoke`, bench/smoke.ts): 200 turns over 10 minutes, 1 s waits instead of 5 and 8. */
const TURNS = count(5000, 200)
const DURATION = count(2 * 60 * 60, 10 * 60)
const SETTLE_MS = count(5000, 1000)
const FOLLOW_MS = count(8000, 1000)
const NAME = SMOKE ? 'smoke meeting.wav' : 'two-hour meeting.wav'
const RATE = 8000
const SPEAKERS = ['speaker_0', 'speaker_1', 'speaker_2', 'speaker_3']
const WORDS =
  'so we looked at the numbers again and the second quarter was better than we thought it would be but the costs are still rising faster than revenue'.split(
    ' ',
  )

/** A deterministic pseudo-random sequence, so every run measures the same transcript. */
function random(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0
    return s / 2 ** 32
  }
}

function fixture(): { result: StoredResult; audio: Buffer; peaks: { data: number[]; duration: number } } {
  const rnd = random(42)
  const slot = DURATION / TURNS
  const turns: NonNullable<NonNullable<StoredResult['diarization']>['turns']> = []
  const spans: NonNullable<StoredResult['diarization']>['segments'] = []
  const segments: NonNullable<StoredResult['segments']> = []
  let previous = -1
  for (let i = 0; i < TURNS; i++) {
    let speaker = Math.floor(rnd() * SPEAKERS.length)
    if (speaker === previous) speaker = (speaker + 1) % SPEAKERS.length
    previous = speaker
    const start = i * slot + rnd() * 0.2
    const end = (i + 1) * slot - 0.1 - rnd() * 0.2
    const words = Array.from(
      { length: 4 + Math.floor(rnd() * 30) },
      () => WORDS[Math.floor(rnd() * WORDS.length)],
    )
    if (i % 17 === 0) words.splice(1, 0, '[joyful]')
    if (i % 23 === 0) words.splice(3, 0, '<pause>')
    if (i % 29 === 0) words.splice(2, 0, '(((really)))')
    const text = words.join(' ')
    turns.push({ speaker: SPEAKERS[speaker] as string, start, end, text })
    segments.push({ id: i, start, end, text })
    // Two diarizer spans per turn.
    const mid = start + (end - start) * (0.3 + rnd() * 0.4)
    spans.push({ id: spans.length, start, end: mid, speaker: SPEAKERS[speaker] as string })
    spans.push({ id: spans.length, start: mid, end, speaker: SPEAKERS[speaker] as string })
  }
  turns.push({ speaker: null, start: null, end: null, text: 'and that is all from me' })
  const result: StoredResult = {
    text: turns.map((t) => t.text).join(' '),
    warnings: [],
    language: 'en',
    duration: DURATION,
    segments,
    diarization: { status: 'completed', speakers: SPEAKERS, segments: spans, turns },
  }

  // The audio: bursts of noise where turns speak, silence between, 16-bit 8 kHz mono.
  const frames = DURATION * RATE
  const samples = new Float32Array(frames)
  for (const t of turns) {
    if (t.start === null || t.end === null) continue
    const a = Math.floor(t.start * RATE)
    const b = Math.min(frames, Math.floor(t.end * RATE))
    const level = 0.2 + rnd() * 0.6
    for (let f = a; f < b; f++) samples[f] = (rnd() * 2 - 1) * level * Math.abs(Math.sin((f - a) / 900))
  }
  const audio = floatToPcm16Wav(samples, RATE)
  return {
    result,
    audio,
    peaks: { data: peaksOfSamples(samples, peakCountFor(DURATION)), duration: DURATION },
  }
}

execFileSync('node', ['scripts/build-if-needed.mjs'], { stdio: 'inherit' })
const stack = await startBenchStack({ staticDir: resolve('dist') })
const store = new TranscriptStore(stack.studioDb, stack.dataDir)
const { result, audio, peaks } = fixture()
const id = 'tr_bench_two_hours'
await store.writeAudio(Readable.from([audio]), `${id}.wav`, audio.length)
store.insert({
  id,
  name: NAME,
  source: 'upload',
  createdBy: 'bench',
  audioFile: `${id}.wav`,
  audioType: 'audio/wav',
  audioBytes: audio.length,
  result,
})
store.savePeaks(id, peaks)
const jsonBytes = JSON.stringify(result).length
if (process.env.BENCH_FIXTURE_OUT) writeFileSync(join(process.env.BENCH_FIXTURE_OUT), JSON.stringify(result))

const browser = await launchBenchBrowser()
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
const cdp = await page.context().newCDPSession(page)
await cdp.send('Performance.enable')
// tsx names functions with a `__name` helper, which functions sent to the page would miss.
await page.addInitScript('globalThis.__name = (f) => f')
await page.goto(`${stack.studioUrl}/transcripts`)
const open = page.getByRole('button', { name: `Open ${NAME}` })
await open.waitFor()

// Long tasks from here on, to find when the main thread settles after opening.
await page.evaluate(() => {
  const w = window as unknown as { longTasks: Array<{ start: number; end: number }> }
  w.longTasks = []
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.longTasks.push({ start: e.startTime, end: e.startTime + e.duration })
  }).observe({ type: 'longtask', buffered: false })
})

/** Clicks Open and times, in the page, the first rows on screen and the waveform drawn from the peaks. */
const timings = await page.evaluate(async (secondsPerTurn) => {
  const button = [...document.querySelectorAll('button')].find(
    (b) => b.textContent === 'Open',
  ) as HTMLButtonElement
  const t0 = performance.now()
  button.click()
  const waitFor = (check: () => boolean) =>
    new Promise<number>((resolve) => {
      const tick = () => (check() ? resolve(performance.now() - t0) : requestAnimationFrame(tick))
      tick()
    })
  const rows = await waitFor(() => document.querySelectorAll('li.turn').length > 0)
  const waveform = await waitFor(() => {
    const host = document.querySelector('.waveform > div')
    const canvas = host?.shadowRoot?.querySelector('canvas')
    return !!canvas && canvas.width > 0
  })
  // Input on a turn: its seek button, answered when the playhead shows its start.
  const turnButton = document.querySelectorAll<HTMLButtonElement>(
    'li.turn .turn-seek',
  )[3] as HTMLButtonElement
  const clickAt = performance.now()
  turnButton.click()
  const target = Number(turnButton.closest('li')?.getAttribute('data-turn'))
  await waitFor(() => {
    const shown = Number(document.querySelector('[data-testid=playhead]')?.getAttribute('data-seconds'))
    return Math.abs(shown - target * secondsPerTurn) < 1.5
  })
  const inputMs = performance.now() - clickAt
  return { t0, rows, waveform, inputMs }
}, DURATION / TURNS)
// Interactive: the end of the last long task that began within 5 s of opening (or first rows, if none).
await page.waitForTimeout(SETTLE_MS)
const longTasks = await page.evaluate(
  () => (window as unknown as { longTasks: Array<{ start: number; end: number }> }).longTasks,
)
const afterOpen = longTasks.filter((t) => t.start >= timings.t0 && t.start < timings.t0 + SETTLE_MS)
const interactive = Math.max(timings.rows, ...afterOpen.map((t) => t.end - timings.t0))
const rowsInDom = await page.locator('li.turn').count()

// Playback at 16× from the middle: the list follows the current turn; record every frame's duration.
const frames = await page.evaluate(
  async ({ middle, followMs }) => {
    const audioEl = document.querySelector('audio') as HTMLAudioElement
    const scroller = document.querySelector('.turn-scroll') as HTMLElement
    audioEl.currentTime = middle
    audioEl.playbackRate = 16
    audioEl.muted = true
    await new Promise((r) => setTimeout(r, 300))
    const deltas: number[] = []
    let scrolls = 0
    let lastScroll = scroller.scrollTop
    let currentChanges = 0
    let lastCurrent = document.querySelector('li.turn-current')?.getAttribute('data-turn')
    await audioEl.play()
    const until = performance.now() + followMs
    await new Promise<void>((resolve) => {
      let last = performance.now()
      const tick = (now: number) => {
        deltas.push(now - last)
        last = now
        if (scroller.scrollTop !== lastScroll) {
          scrolls++
          lastScroll = scroller.scrollTop
        }
        const current = document.querySelector('li.turn-current')?.getAttribute('data-turn')
        if (current !== lastCurrent) {
          currentChanges++
          lastCurrent = current
        }
        if (now < until) requestAnimationFrame(tick)
        else resolve()
      }
      requestAnimationFrame(tick)
    })
    audioEl.pause()
    return { deltas: deltas.slice(1), scrolls, currentChanges, playedTo: audioEl.currentTime }
  },
  { middle: DURATION / 2, followMs: FOLLOW_MS },
)

const metrics = Object.fromEntries(
  (
    (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }
  ).metrics.map((m) => [m.name, m.value]),
)
await browser.close()
await stack.close()

announceSmoke('bench:transcripts')
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const d = frames.deltas
console.log(
  `bench:transcripts — ${TURNS} turns, ${result.diarization?.segments.length} speaker spans, ${(DURATION / 3600).toFixed(2)} h of audio (result JSON ${mb(jsonBytes)}, ${peaks.data.length} peaks)`,
)
console.log(`open → first rows on screen:              ${timings.rows.toFixed(0)} ms`)
console.log(`open → waveform drawn from peaks:         ${timings.waveform.toFixed(0)} ms`)
console.log(
  `open → interactive (last long task ends): ${interactive.toFixed(0)} ms (${afterOpen.length} long tasks)`,
)
console.log(`click a turn → playhead there:            ${timings.inputMs.toFixed(0)} ms`)
console.log(`rows in the DOM (virtualized):            ${rowsInDom} of ${TURNS + 1}`)
console.log(
  `frames while following playback (16×, ${FOLLOW_MS / 1000} s): p50 ${percentile(d, 50).toFixed(1)} ms, p95 ${percentile(d, 95).toFixed(1)} ms, p99 ${percentile(d, 99).toFixed(1)} ms, max ${Math.max(...d).toFixed(1)} ms, ${d.filter((x) => x > 50).length} of ${d.length} over 50 ms`,
)
console.log(
  `  current turn changed ${frames.currentChanges} times, list scrolled ${frames.scrolls} times, played to ${frames.playedTo.toFixed(0)} s`,
)
console.log(
  `memory: JS heap used ${mb(metrics.JSHeapUsedSize ?? 0)} of ${mb(metrics.JSHeapTotalSize ?? 0)}; DOM nodes ${metrics.Nodes}`,
)
