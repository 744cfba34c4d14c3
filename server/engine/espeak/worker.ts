/**
 * One eSpeak NG WebAssembly instance in its own thread. eSpeak's synthesize() is synchronous, so it cannot share the
 * server's event loop; here it runs to completion per job while chunks stream back over postMessage.
 */
import { readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import init from '@echogarden/espeak-ng-emscripten'
import { concat } from '../../../core/concat.ts'
import { OUTPUT_SAMPLE_RATE } from '../synthesizer.ts'
import { stretchTempo, TimeStretcher } from '../time-stretch.ts'
import { PolyphaseResampler } from './polyphase.ts'
import { ABORT, CREDITS, type JobMessage, POST_SAMPLES, type WorkerMessage } from './protocol.ts'
import { escapeForSsml, espeakRate, spaceAfterPhonemes } from './text.ts'

const port = parentPort
if (!port) throw new Error('The eSpeak worker must run in a worker thread.')

/** How much a background thread gives way (a nice value: CPU share about 1/10 of a normal thread's under contention). */
const BACKGROUND_NICE = 10

/**
 * A background worker (pool.ts) lowers its own thread's priority: on Linux a thread id given to setpriority() names
 * that thread alone, and this thread's id is the last part of /proc/thread-self. Raising it back would need a
 * privilege, which is why a worker keeps its role for life. Elsewhere, or if refused, the thread keeps the process's.
 */
function lowerThisThread(nice: number) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice)
  } catch {
    // Not Linux, or not allowed: the worker simply runs at the process's priority.
  }
}
if ((workerData as { background?: boolean } | null)?.background) lowerThisThread(BACKGROUND_NICE)

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
/** A copy of the engine's memory up to its last non-zero byte. */
function usedMemory(): Uint8Array {
  const heap = espeak.HEAPU8
  let end = heap.length
  while (end > 0 && heap[end - 1] === 0) end--
  return heap.slice(0, end)
}
const snapshot = usedMemory()

/**
 * The memory right after `set_voice(voice)` from the snapshot, for the last few voices: loading a voice (its files,
 * phoneme tables) takes as long as speaking a short word, and every job would repeat it. Restoring this copy gives
 * the very same state, so jobs sound exactly as they would after loading the voice again.
 */
const voiceSnapshots = new Map<string, Uint8Array>()
const VOICE_SNAPSHOTS = 4

function restore(copy: Uint8Array) {
  const heap = espeak.HEAPU8
  heap.set(copy)
  heap.fill(0, copy.length)
}

/** The voice the engine's memory was restored for after the last job, untouched since; null when it was not. */
let restoredFor: string | null = null

/** The engine as the snapshot left it, speaking `voice`; false when eSpeak has no such voice. */
function restoreEngine(voice: string): boolean {
  if (restoredFor === voice) {
    restoredFor = null
    return true
  }
  restoredFor = null
  const known = voiceSnapshots.get(voice)
  if (known) {
    // Most recently used last.
    voiceSnapshots.delete(voice)
    voiceSnapshots.set(voice, known)
    restore(known)
    return true
  }
  restore(snapshot)
  if (engine.set_voice(voice) !== 0) return false
  voiceSnapshots.set(voice, usedMemory())
  if (voiceSnapshots.size > VOICE_SNAPSHOTS)
    voiceSnapshots.delete(voiceSnapshots.keys().next().value as string)
  return true
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
  const text = spaceAfterPhonemes(job.ssml ? job.text : escapeForSsml(job.text))
  // UTF-8 takes at most 3 bytes per UTF-16 unit; the terminating zero and alignment take a few more.
  if (text.length * 3 + 16 > MAX_JOB_BYTES) {
    throw new Error(`One synthesis job takes at most ${Math.floor(MAX_JOB_BYTES / 3) - 16} characters.`)
  }
  if (!restoreEngine(job.voice.espeakVoice)) {
    throw new Error(`eSpeak NG has no voice "${job.voice.espeakVoice}".`)
  }
  engine.set_rate(espeakRate(job.voice.rate, job.speed))
  engine.set_pitch(job.voice.pitch)
  engine.set_range(job.voice.range)

  const resampler = new PolyphaseResampler(sourceRate, OUTPUT_SAMPLE_RATE)
  // Beyond eSpeak's rates, the rest of the tempo change keeps the pitch through a time-stretch.
  const tempo = stretchTempo(job.voice.rate, job.speed)
  const stretcher = tempo === 1 ? null : new TimeStretcher(tempo, OUTPUT_SAMPLE_RATE)
  const stretch = (pcm: Int16Array) => (stretcher ? stretcher.push(pcm) : pcm)
  // The job's first audio goes out at once; after it, pieces are gathered to POST_SAMPLES before they are posted,
  // since each message costs about as much as resampling a tenth of a second.
  let parts: Int16Array[] = []
  let gathered = 0
  let posted = false
  const send = (pcm: Int16Array, last = false) => {
    if (pcm.length > 0) {
      parts.push(pcm)
      gathered += pcm.length
    }
    if (gathered === 0 || (posted && !last && gathered < POST_SAMPLES)) return false
    if (waitForCredit(control)) return true
    const chunk = parts.length === 1 ? (parts[0] as Int16Array) : concat(parts, Int16Array)
    parts = []
    gathered = 0
    posted = true
    post({ type: 'chunk', pcm: chunk }, [chunk.buffer as ArrayBuffer])
    return false
  }
  // The callback's return value tells eSpeak to abort: true stops synthesis mid-sentence.
  engine.synthesize(text, (samples: Int16Array) => {
    if (Atomics.load(control, ABORT) === 1) return true
    return send(stretch(resampler.push(samples)))
  })
  if (Atomics.load(control, ABORT) === 1) return
  // The resampler's tail, then the stretcher's, the last of them posted with whatever is still gathered.
  const rest = stretch(resampler.flush())
  if (!stretcher) send(rest, true)
  else if (!send(rest)) send(stretcher.flush(), true)
}

/**
 * After a job has reported its end, the memory is restored for the same voice at once: the next segment of a stream
 * usually speaks with it, and the copy is then made while the server prepares that segment, not after it arrives.
 */
function restoreAhead(voice: string) {
  const known = voiceSnapshots.get(voice)
  if (!known) return
  restore(known)
  restoredFor = voice
}

port.on('message', (job: JobMessage) => {
  run(job).then(
    () => {
      post({ type: 'done' })
      restoreAhead(job.voice.espeakVoice)
    },
    (err: unknown) => post({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
  )
})
post({ type: 'ready' })
