/**
 * A PocketSphinx decoder kept loaded for one caller's many short decodes (a realtime session re-decoding the speech
 * that goes on, docs/recognition.md "Warm decoding"). One `pocketsphinx_batch` process reads its control list from a
 * named pipe, line by line as it arrives, and writes each utterance's segmentation (`-hypseg`) to another, flushed
 * per utterance: a decode then costs only the decoding of its audio, not the start of a process and the loading of
 * the models (0.3 s on an idle machine, 1–2 s under load, every time). Decodes run one at a time, in call order;
 * each writes its audio to its own file in the decoder's private directory (the batch decoder seeks, so no pipe).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { close as closeFd, constants, open as openFd, write as writeFd } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { Socket } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { promisify } from 'node:util'
import { writePcm16 } from './batch-decoder.ts'
import { isWord, parseHypseg } from './decoder-output.ts'
import type { RecognizedWord, RecognizeOptions, Transcription, WarmTranscriber } from './recognizer.ts'
import { DEFAULT_PLAN, FRAMES_PER_SECOND, frameLevels, planUtterances } from './utterances.ts'

export interface WarmDecoderRun {
  binary: string
  tmpRoot: string
  /** Decoder arguments besides the input and output ones. */
  args: readonly string[]
  /** Checked before the process starts (the install may have gone). */
  ready(): Promise<void>
}

/** A decode in progress: the segmentation lines it still waits for. */
interface Waiting {
  lines: string[]
  expected: number
  resolve(lines: string[]): void
  reject(err: unknown): void
}

/**
 * `transcribe` as the recognizer's (the same utterance plan and decoder settings), with confidence 1 (the
 * segmentation has none); `close` ends the process and removes its directory, and calls still waiting fail.
 */
export function openWarmDecoder(run: WarmDecoderRun): WarmTranscriber {
  let started: Promise<{ dir: string; child: ChildProcess; control: number; output: Socket }> | null = null
  let failure: Error | null = null
  let waiting: Waiting | null = null
  let tail: Promise<unknown> = Promise.resolve()
  let files = 0
  let utterances = 0

  const fail = (err: Error) => {
    failure ??= err
    waiting?.reject(failure)
    waiting = null
  }

  const start = async () => {
    await run.ready()
    const dir = await mkdtemp(join(run.tmpRoot, 'pocketsphinx-warm-'))
    await promisify(execFile)('mkfifo', [join(dir, 'control'), join(dir, 'output')])
    const child = spawn(
      run.binary,
      [
        ...['-adcin', 'yes', '-cepdir', dir, '-cepext', '.raw', '-ctl', join(dir, 'control')],
        ...['-hypseg', join(dir, 'output'), ...run.args],
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    )
    child.on('error', (err) => fail(err))
    child.on('close', (code, signal) => {
      fail(new Error(`pocketsphinx_batch (warm) exited (${signal ?? `exit ${code}`})`))
    })
    // Both pipes are opened read-write, which on Linux never waits for the other side: a plain open would hold one of
    // libuv's four pool threads until the decoder has loaded its models (seconds under load), stalling every file
    // operation of the service meanwhile. Holding both ends also means neither side ever reads an early end of file.
    const control = await promisify(openFd)(join(dir, 'control'), constants.O_RDWR)
    const output = new Socket({
      fd: await promisify(openFd)(join(dir, 'output'), constants.O_RDWR | constants.O_NONBLOCK),
      readable: true,
      writable: false,
    })
    createInterface({ input: output }).on('line', (line) => {
      if (!waiting) return
      waiting.lines.push(line)
      if (waiting.lines.length === waiting.expected) {
        const done = waiting
        waiting = null
        done.resolve(done.lines)
      }
    })
    output.on('error', (err) => fail(err))
    return { dir, child, control, output }
  }

  const decode = async (audio: Float32Array, opts?: RecognizeOptions): Promise<Transcription> => {
    opts?.signal?.throwIfAborted()
    if (failure || !started) throw failure ?? new Error('The decoder is closed.')
    // Fails closed as `transcribe` does: a missing install fails even a call with nothing to decode.
    const { dir, child, control } = await started
    const planned = planUtterances(frameLevels(audio), DEFAULT_PLAN)
    if (planned.length === 0) return { words: [], text: '' }
    const name = `a${files++}`
    const path = join(dir, `${name}.raw`)
    const kill = () => child.kill('SIGKILL')
    opts?.signal?.addEventListener('abort', kill, { once: true })
    try {
      await writePcm16(path, audio, opts?.signal)
      if (failure) throw failure
      const ids = planned.map(() => `u${utterances++}`)
      const lines = await new Promise<string[]>((resolve, reject) => {
        waiting = { lines: [], expected: planned.length, resolve, reject }
        const list = planned.map((u, i) => `${name} ${u.startFrame} ${u.endFrame} ${ids[i]}\n`).join('')
        // A few short lines: far below the pipe's buffer, so the write never waits for the decoder.
        writeFd(control, list, (err) => {
          if (err) fail(err)
        })
      })
      const words: RecognizedWord[] = []
      lines.forEach((line, i) => {
        const utterance = planned[i] as (typeof planned)[number]
        if (!line.startsWith(`${ids[i]} `)) throw new Error(`unexpected decoder output: ${line.slice(0, 80)}`)
        for (const seg of parseHypseg(line)) {
          if (!isWord(seg.word)) continue
          words.push({
            text: seg.word,
            start: (utterance.startFrame + seg.startFrame) / FRAMES_PER_SECOND,
            end: Math.min(utterance.endFrame, utterance.startFrame + seg.endFrame) / FRAMES_PER_SECOND,
            confidence: 1,
          })
        }
      })
      return { words, text: words.map((w) => w.text).join(' ') }
    } finally {
      opts?.signal?.removeEventListener('abort', kill)
      await rm(path, { force: true })
    }
  }

  // The process starts now, so that its models are loaded before the first decode is asked for.
  started = start()
  started.catch((err) => fail(err instanceof Error ? err : new Error(String(err))))

  return {
    transcribe(audio, opts) {
      const result = tail.then(() => decode(audio, opts))
      tail = result.catch(() => undefined)
      return result
    },
    async close() {
      fail(new Error('The decoder is closed.'))
      const running = started
      started = null
      if (!running) return
      const opened = await running.catch(() => null)
      if (!opened) return
      const { dir, child, control, output } = opened
      output.destroy()
      closeFd(control, () => undefined)
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('close', resolve))
        child.kill('SIGKILL')
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    },
  }
}
