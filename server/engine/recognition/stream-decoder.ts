/**
 * A PocketSphinx decoder fed audio as it arrives (docs/recognition.md "Streaming decoding"): one `ps-stream` process
 * (native/ps-stream.c) per caller decodes each frame once, and reports the best words so far of the utterance going
 * on when asked. Live words then cost the decoding of new audio only, where re-decoding the turn with the warm decoder
 * paid again for every second already heard. Records go to the process in call order; answers come back in order.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { pcm16Ditherer } from './batch-decoder.ts'
import { baseWord, isWord } from './decoder-output.ts'
import type { RecognizedWord, StreamingTranscriber, Transcription } from './recognizer.ts'
import { FRAMES_PER_SECOND } from './utterances.ts'

export interface StreamDecoderRun {
  /** The built `ps-stream` executable (null: it cannot be built here, and every call fails). */
  binary: Promise<string | null>
  /** Decoder arguments. */
  args: readonly string[]
  /** Checked before the process starts (the install may have gone). */
  ready(): Promise<void>
}

/** The most samples one record carries (native/ps-stream.c MAX_SAMPLES). */
const MAX_RECORD_SAMPLES = 16_000 * 10
/** A record of no samples asks for the best words so far. */
const HYPOTHESIS = 0
const RESTART = -1

type Child = ChildProcessByStdio<Writable, Readable, null>

/** `restart`, `push` and `hypothesis` as `StreamingTranscriber` says; `close` ends the process, and calls waiting fail. */
export function openStreamDecoder(run: StreamDecoderRun): StreamingTranscriber {
  let failure: Error | null = null
  const waiting: Array<{ resolve(t: Transcription): void; reject(err: unknown): void }> = []
  // Dithered as the batch decoders' input is: digital silence would ruin the cepstral mean.
  const toPcm16 = pcm16Ditherer()

  const fail = (err: Error) => {
    failure ??= err
    for (const w of waiting.splice(0)) w.reject(failure)
  }

  const start = async (): Promise<Child> => {
    await run.ready()
    const binary = await run.binary
    if (!binary)
      throw new Error(
        'The streaming decoder cannot be built here (it needs cc, pkg-config and libpocketsphinx-dev).',
      )
    const child = spawn(binary, [...run.args, '-logfn', '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] })
    child.on('error', (err) => fail(err))
    child.on('close', (code, signal) => fail(new Error(`ps-stream exited (${signal ?? `exit ${code}`})`)))
    // A write after the process has gone fails with EPIPE; `close` reports why.
    child.stdin.on('error', () => undefined)
    let loaded = false
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (loaded) waiting.shift()?.resolve(parseHypothesis(line))
      else loaded = line === 'ready'
    })
    return child
  }

  let started: Promise<Child> | null = start()
  started.catch((err) => fail(err instanceof Error ? err : new Error(String(err))))

  /** Writes after the process has started, in call order (every write waits on the same promise). */
  const write = (records: Buffer[]) => {
    if (failure || !started) return
    void started.then(
      (child) => {
        for (const record of records) child.stdin.write(record)
      },
      () => undefined,
    )
  }

  return {
    restart() {
      write([header(RESTART)])
    },
    push(audio) {
      const records: Buffer[] = []
      for (let at = 0; at < audio.length; at += MAX_RECORD_SAMPLES) {
        const part = audio.subarray(at, at + MAX_RECORD_SAMPLES)
        const pcm = toPcm16(part)
        records.push(header(part.length), Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength))
      }
      write(records)
    },
    hypothesis() {
      if (failure || !started) return Promise.reject(failure ?? new Error('The decoder is closed.'))
      const answer = new Promise<Transcription>((resolve, reject) => waiting.push({ resolve, reject }))
      write([header(HYPOTHESIS)])
      return answer
    },
    async close() {
      fail(new Error('The decoder is closed.'))
      const running = started
      started = null
      const child = await running?.catch(() => null)
      if (!child || child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('close', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}

const header = (n: number) => {
  const record = Buffer.alloc(4)
  record.writeInt32LE(n)
  return record
}

/** `<frames> (<unit> <first frame> <last frame>)*`: the words, in seconds from the utterance's start. */
export function parseHypothesis(line: string): Transcription {
  const fields = line.trim().split(/\s+/).slice(1)
  const words: RecognizedWord[] = []
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const unit = fields[i] as string
    if (!isWord(unit)) continue
    words.push({
      text: baseWord(unit),
      start: Number(fields[i + 1]) / FRAMES_PER_SECOND,
      end: (Number(fields[i + 2]) + 1) / FRAMES_PER_SECOND,
      confidence: 1,
    })
  }
  return { words, text: words.map((w) => w.text).join(' ') }
}
