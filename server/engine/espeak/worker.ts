/**
 * One eSpeak NG WebAssembly instance in its own thread. eSpeak's synthesize() is synchronous, so it cannot share the
 * server's event loop; here it runs to completion per job while chunks stream back over postMessage.
 */
import { parentPort } from 'node:worker_threads'
import init from '@echogarden/espeak-ng-emscripten'
import { OUTPUT_SAMPLE_RATE } from '../synthesizer.ts'
import { ABORT, CREDITS, type JobMessage, type WorkerMessage } from './protocol.ts'
import { StreamResampler } from './resampler.ts'
import { escapeForSsml, espeakRate } from './text.ts'

const port = parentPort
if (!port) throw new Error('The eSpeak worker must run in a worker thread.')

const espeak = await init()
const engine = new espeak.eSpeakNGWorker()
const sourceRate: number = engine.get_samplerate()

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer)

/** Blocks this thread until the consumer has room or the job is aborted; true when aborted. */
function waitForCredit(control: Int32Array): boolean {
  for (;;) {
    if (Atomics.load(control, ABORT) === 1) return true
    const credits = Atomics.load(control, CREDITS)
    if (credits > 0) {
      Atomics.sub(control, CREDITS, 1)
      return false
    }
    Atomics.wait(control, CREDITS, credits, 1000)
  }
}

async function run(job: JobMessage) {
  const control = new Int32Array(job.control)
  if (engine.set_voice(job.voice.espeakVoice) !== 0) {
    throw new Error(`eSpeak NG has no voice "${job.voice.espeakVoice}".`)
  }
  engine.set_rate(espeakRate(job.voice.rate, job.speed))
  engine.set_pitch(job.voice.pitch)
  engine.set_range(job.voice.range)

  const resampler = await StreamResampler.create(sourceRate, OUTPUT_SAMPLE_RATE)
  try {
    const send = (pcm: Int16Array) => {
      if (pcm.length === 0) return false
      if (waitForCredit(control)) return true
      post({ type: 'chunk', pcm }, [pcm.buffer as ArrayBuffer])
      return false
    }
    // The callback's return value tells eSpeak to abort: true stops synthesis mid-sentence.
    engine.synthesize(job.ssml ? job.text : escapeForSsml(job.text), (samples: Int16Array) => {
      if (Atomics.load(control, ABORT) === 1) return true
      return send(resampler.push(samples))
    })
    if (Atomics.load(control, ABORT) !== 1) send(resampler.flush())
  } finally {
    resampler.close()
  }
}

port.on('message', (job: JobMessage) => {
  run(job).then(
    () => post({ type: 'done' }),
    (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
  )
})
post({ type: 'ready' })
