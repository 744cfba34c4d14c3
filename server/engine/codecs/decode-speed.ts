/**
 * Decode speed per upload format: `npx tsx server/engine/codecs/decode-speed.ts [seconds]` (default 60). Encodes the
 * test tone with ffmpeg, then decodes each file in this thread, as a decode worker does, at the file's rate and
 * resampled to 16 kHz, and prints the median of three runs after a warm-up. Needs ffmpeg on PATH.
 */
import { decodeInThisThread } from './decode-core.ts'
import { FIXTURES, hasFfmpeg, makeFixture, scratchDir } from './decode-fixtures.ts'

const seconds = Number(process.argv[2] ?? 60)
const RUNS = 3

/** Median wall and CPU milliseconds. CPU time says more on a busy machine, where wall time waits for a core. */
async function measure(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  await run() // warm-up: loads and compiles the codec's WASM
  const wall: number[] = []
  const cpu: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    const startCpu = process.cpuUsage()
    await run()
    const used = process.cpuUsage(startCpu)
    wall.push(performance.now() - start)
    cpu.push((used.user + used.system) / 1000)
  }
  return { wall: medianOf(wall), cpu: medianOf(cpu) }
}

function medianOf(values: number[]): number {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
}

async function main() {
  if (!hasFfmpeg) throw new Error('ffmpeg is needed to make the files to decode')
  const scratch = scratchDir()
  try {
    console.log(`${seconds} s of stereo tone per file; median of ${RUNS} decodes in one thread\n`)
    console.log('file         size KiB   wall ms   CPU ms   × real time (CPU)   to 16 kHz: wall ms   CPU ms')
    for (const fixture of FIXTURES) {
      const bytes = makeFixture(scratch.dir, fixture, seconds)
      const options = { maxDurationSeconds: 3600 }
      const native = await measure(() => decodeInThisThread(bytes, options))
      const to16k = await measure(() => decodeInThisThread(bytes, { ...options, targetRate: 16000 }))
      console.log(
        [
          fixture.name.padEnd(12),
          String(Math.round(bytes.length / 1024)).padStart(8),
          native.wall.toFixed(0).padStart(9),
          native.cpu.toFixed(0).padStart(8),
          ((seconds * 1000) / native.cpu).toFixed(0).padStart(19),
          to16k.wall.toFixed(0).padStart(20),
          to16k.cpu.toFixed(0).padStart(8),
        ].join(' '),
      )
    }
  } finally {
    scratch.remove()
  }
}

await main()
