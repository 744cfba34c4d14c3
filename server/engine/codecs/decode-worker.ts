/** A decode worker thread: decodes one upload per message (decode-pool.ts sends them one at a time). */
import { parentPort } from 'node:worker_threads'
import { decodeInThisThread } from './decode-core.ts'
import { AudioDecodeError } from './decode-error.ts'
import type { DecodeReply, DecodeRequest } from './decode-pool.ts'

const port = parentPort
if (!port) throw new Error('decode-worker.ts runs only as a worker thread')

/**
 * The WASM decoders print a line to stderr for every damaged frame, which for an uploaded file of garbage would be
 * thousands of lines in the service's log; the failure reaches the caller as an AudioDecodeError anyway. This thread
 * only decodes, so their lines are dropped here and nothing else is.
 */
const DECODER_NOISE = /^(@wasm-audio-decoders\/|mpg123-decoder: |libopus -)/
const printError = console.error.bind(console)
console.error = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && DECODER_NOISE.test(args[0])) return
  printError(...args)
}

/**
 * A library's stray promise rejection (mediabunny leaves some unhandled after a decoder error) would end the thread
 * and fail whichever upload it decodes next. The upload it belongs to has failed through its own path already.
 */
process.on('unhandledRejection', () => {})

port.on('message', async ({ bytes, options }: DecodeRequest) => {
  let reply: DecodeReply
  try {
    const audio = await decodeInThisThread(bytes, options)
    port.postMessage({ type: 'done', audio } satisfies DecodeReply, [audio.samples.buffer as ArrayBuffer])
    return
  } catch (error) {
    reply =
      error instanceof AudioDecodeError
        ? { type: 'failed', code: error.code, message: error.message }
        : {
            type: 'failed',
            code: 'corrupt_audio',
            message: error instanceof Error ? error.message : String(error),
          }
  }
  port.postMessage(reply)
})

// Sent once the decoder modules have loaded: a failure before it is the machine's, not the file's.
port.postMessage({ type: 'ready' } satisfies DecodeReply)
