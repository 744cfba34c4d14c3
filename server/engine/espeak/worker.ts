/**
 * One eSpeak NG WebAssembly instance in its own thread. eSpeak's synthesize() is synchronous, so it cannot share the
 * server's event loop; here it runs to completion per job while chunks stream back over postMessage.
 */
import { parentPort } from 'node:worker_threads'
import init from '@echogarden/espeak-ng-emscripten'
import { OUTPUT_SAMPLE_RATE } from '../synthesizer.ts'
import { stretchTempo, TimeStretcher } from '../time-stretch.ts'
import { ABORT, CREDITS, type JobMessage, type WorkerMessage } from './protocol.ts'
import { StreamResampler } from './resampler.ts'
import { escapeForSsml, espeakRate } from './text.ts'

const port = parentPort
if (!port) throw new Error('The eSpeak worker must run in a worker thread.')

const espeak = await init()
const engine = new espeak.eSpeakNGWorker()
const sourceRate: number = engine.get_samplerate()

/**
 * eSpeak carries state from one utterance to the next — the phase of its pitch flutter, its breath-noise generator,
 * its gain control — so the same job would sound slightly different each time. Every job therefore starts from a
 * copy of the engine's memory taken once, after a silent warm-up (the first synthesis also initializes state outside
 * that memory): identical jobs give identical audio, which greedy decoding's takes rely on (docs/decoding.md). The copy
 * ends at the last non-zero byte (about 1 MB); everything above it is zeroed again, as fresh memory is.
 *
 * The bindings copy every string argument into a buffer they allocate in that memory and keep track of outside it;
 * a longer string than the buffer holds would make them allocate again, out of step with the copy. The warm-up
 * therefore grows the buffer to MAX_JOB_BYTES first (an unknown voice name of that size is refused at once), and a
 * longer job is refused. Jobs are a segment of at most ~530 characters with its SSML, far below it.
 */
const MAX_JOB_BYTES = 256 * 1024
engine.set_voice('x'.repeat(MAX_JOB_BYTES))
engine.set_voice('en-us')
// A space makes no sound, so the flutter and noise state stay as a fresh engine has them: every job sounds exactly
// like the first one a newly started eSpeak speaks.
engine.synthesize(' ', () => false)
const snapshot = (() => {
  const heap = espeak.HEAPU8
  let end = heap.length
  while (end > 0 && heap[end - 1] === 0) end--
  return heap.slice(0, end)
})()

function restoreEngine() {
  const heap = espeak.HEAPU8
  heap.set(snapshot)
  heap.fill(0, snapshot.length)
}

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
  const text = job.ssml ? job.text : escapeForSsml(job.text)
  // UTF-8 takes at most 3 bytes per UTF-16 unit; the terminating zero and alignment take a few more.
  if (text.length * 3 + 16 > MAX_JOB_BYTES) {
    throw new Error(`One synthesis job takes at most ${Math.floor(MAX_JOB_BYTES / 3) - 16} characters.`)
  }
  restoreEngine()
  if (engine.set_voice(job.voice.espeakVoice) !== 0) {
    throw new Error(`eSpeak NG has no voice "${job.voice.espeakVoice}".`)
  }
  engine.set_rate(espeakRate(job.voice.rate, job.speed))
  engine.set_pitch(job.voice.pitch)
  engine.set_range(job.voice.range)

  const resampler = await StreamResampler.create(sourceRate, OUTPUT_SAMPLE_RATE)
  // Beyond eSpeak's rates, the rest of the tempo change keeps the pitch through a time-stretch.
  const tempo = stretchTempo(job.voice.rate, job.speed)
  const stretcher = tempo === 1 ? null : new TimeStretcher(tempo, OUTPUT_SAMPLE_RATE)
  const stretch = (pcm: Int16Array) => (stretcher ? stretcher.push(pcm) : pcm)
  try {
    const send = (pcm: Int16Array) => {
      if (pcm.length === 0) return false
      if (waitForCredit(control)) return true
      post({ type: 'chunk', pcm }, [pcm.buffer as ArrayBuffer])
      return false
    }
    // The callback's return value tells eSpeak to abort: true stops synthesis mid-sentence.
    engine.synthesize(text, (samples: Int16Array) => {
      if (Atomics.load(control, ABORT) === 1) return true
      return send(stretch(resampler.push(samples)))
    })
    if (Atomics.load(control, ABORT) !== 1 && !send(stretch(resampler.flush())) && stretcher)
      send(stretcher.flush())
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
