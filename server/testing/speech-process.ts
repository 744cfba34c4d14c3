import { type ChildProcess, spawn } from 'node:child_process'
import { freePort } from './ports.ts'

/** A speech service running as its own process (`server/speech/main.ts`), as each instance of a deployment does. */
export interface SpeechProcess {
  name: string
  url: string
  child: ChildProcess
  /** Everything it printed, for the error when it fails to start and for a failing test's diagnosis. */
  output: string[]
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts `server/speech/main.ts` on a free port over the data directory `dir`, with `env` on top of this process's
 * environment, and resolves once its `/health` answers 200; rejects with its output if it exits or has not started
 * within `startupMs`. `onSpawn` sees it as soon as it is spawned (so a suite lists its instances in the order it
 * started them, whichever is ready first). The cluster suites kill these with SIGKILL to play an instance that dies
 * without a word.
 */
export async function startSpeechProcess(
  name: string,
  dir: string,
  env: Record<string, string>,
  opts: { startupMs?: number; onSpawn?: (instance: SpeechProcess) => void } = {},
): Promise<SpeechProcess> {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/speech/main.ts', '--port', String(port), '--data', dir],
    { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const instance: SpeechProcess = { name, url: `http://127.0.0.1:${port}`, child, output: [] }
  for (const stream of [child.stdout, child.stderr])
    stream?.on('data', (d: Buffer) => instance.output.push(d.toString()))
  opts.onSpawn?.(instance)
  const deadline = Date.now() + (opts.startupMs ?? 60_000)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${instance.output.join('')}`)
    const ok = await fetch(`${instance.url}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return instance
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${name} did not start: ${instance.output.join('')}`)
    }
    await sleep(200)
  }
}
