/**
 * One run of `pocketsphinx_batch` over a list of utterances of one recording. The audio goes to a 16-bit raw file in
 * a private temporary directory (the batch decoder seeks to each utterance, so it cannot read a pipe), with the
 * control file, any grammar and the outputs beside it; the directory is removed when the run ends, however it ends.
 * Aborting kills the decoder, and the call settles only once the process has exited.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Utterance } from './utterances.ts'

export interface BatchRun {
  binary: string
  /** Where the private directory is made (the system's temporary directory by default). */
  tmpRoot: string
  audio: Float32Array
  utterances: readonly Utterance[]
  /** Decoder arguments besides the input ones; `{dir}` in a value is replaced by the private directory. */
  args: readonly string[]
  /** Extra files to write in the directory before the run (grammar, dictionary), by name. */
  files?: Readonly<Record<string, string>>
  /** The output file to read back, by name. */
  output: string
  signal?: AbortSignal
}

/** Samples (10 s) converted and written at a time, so that no 16-bit copy of a whole long recording is held. */
const WRITE_BLOCK_SAMPLES = 16_000 * 10
/** Error lines kept from the decoder's log for the failure message. */
const MAX_ERROR_LINES = 5

/** Runs the decoder and returns the output file's text. Utterance ids are `u0`, `u1`… in the order given. */
export async function runBatch(run: BatchRun): Promise<string> {
  run.signal?.throwIfAborted()
  const dir = await mkdtemp(join(run.tmpRoot, 'pocketsphinx-'))
  try {
    await writePcm16(join(dir, 'audio.raw'), run.audio, run.signal)
    const control = run.utterances.map((u, i) => `audio ${u.startFrame} ${u.endFrame} u${i}\n`).join('')
    await writeFile(join(dir, 'utterances.ctl'), control)
    for (const [name, text] of Object.entries(run.files ?? {})) await writeFile(join(dir, name), text)
    const args = [
      ...['-adcin', 'yes', '-cepdir', dir, '-cepext', '.raw', '-ctl', join(dir, 'utterances.ctl')],
      ...run.args.map((a) => a.replaceAll('{dir}', dir)),
    ]
    await runProcess(run.binary, args, run.signal)
    return await readFile(join(dir, run.output), 'utf8')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Digital silence (exact zeros, as synthesized speech and noise-suppressed browser recordings have) ruins the
 * decoder's per-utterance cepstral mean: the log energy of a zero frame is far below any speech. Noise of ±4 LSB
 * (about −83 dBFS, below any microphone's floor) fills it; it comes from a fixed-seed generator so that a recording
 * always decodes the same way. PocketSphinx's own `-dither` adds half a bit, too little to help.
 */
const DITHER_LSB = 4

/**
 * A converter of float samples to 16-bit PCM, dithered and clipped, for one recording: its noise goes on from one
 * block to the next, and starts from the same seed for every recording.
 */
export function pcm16Ditherer(): (block: Float32Array) => Int16Array {
  let seed = 1
  return (block) => {
    const pcm = new Int16Array(block.length)
    for (let i = 0; i < block.length; i++) {
      // A 32-bit linear congruential generator: plenty for noise, and no allocation per sample.
      seed = (Math.imul(seed, 1664525) + 1013904223) | 0
      const noise = (seed / 2 ** 31) * DITHER_LSB
      pcm[i] = Math.max(-32768, Math.min(32767, Math.round((block[i] as number) * 32767 + noise)))
    }
    return pcm
  }
}

/** Little-endian 16-bit PCM, dithered and clipped; written block by block. */
export async function writePcm16(path: string, audio: Float32Array, signal?: AbortSignal): Promise<void> {
  const file = await open(path, 'w')
  const toPcm16 = pcm16Ditherer()
  try {
    for (let start = 0; start < audio.length; start += WRITE_BLOCK_SAMPLES) {
      signal?.throwIfAborted()
      const pcm = toPcm16(audio.subarray(start, start + WRITE_BLOCK_SAMPLES))
      await file.write(new Uint8Array(pcm.buffer))
    }
  } finally {
    await file.close()
  }
}

/** Resolves when the process exits with 0; rejects with the signal's reason once a killed process has exited. */
function runProcess(binary: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted()
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    const errors: string[] = []
    let pending = ''
    child.stderr.setEncoding('utf8')
    // The log is verbose (every utterance's search statistics); only its error lines are kept.
    const keepErrors = (lines: string[]) => {
      for (const line of lines) {
        if (/^(ERROR|FATAL)/.test(line) && errors.length < MAX_ERROR_LINES) errors.push(line.trim())
      }
    }
    child.stderr.on('data', (text: string) => {
      const lines = (pending + text).split('\n')
      pending = lines.pop() ?? ''
      keepErrors(lines)
    })
    const kill = () => child.kill('SIGKILL')
    signal?.addEventListener('abort', kill, { once: true })
    child.on('error', (error) => {
      signal?.removeEventListener('abort', kill)
      reject(error)
    })
    child.on('close', (code, killedBy) => {
      signal?.removeEventListener('abort', kill)
      keepErrors([pending])
      if (signal?.aborted) reject(signal.reason)
      else if (code === 0) resolve()
      else reject(new Error(`pocketsphinx_batch failed (${killedBy ?? `exit ${code}`}): ${errors.join(' ')}`))
    })
  })
}
