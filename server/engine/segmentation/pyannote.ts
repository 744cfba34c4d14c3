/**
 * pyannote's speaker-segmentation 3.0 (MIT; int8 ONNX export by sherpa-onnx), shipped beside this file with its
 * licence. It takes 10 s of 16 kHz audio and returns, for 589 frames, log-probabilities over seven *powerset*
 * classes: nobody, speaker 1, 2, 3, {1,2}, {1,3}, {2,3} (at most three speakers a window, two at once).
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import * as ort from 'onnxruntime-node'
import type { LocalActivity, Segmenter } from './segmenter.ts'

export const PYANNOTE_MODEL_PATH = fileURLToPath(
  new URL('./pyannote-segmentation-3.0.int8.onnx', import.meta.url),
)
const MODEL_SHA256 = 'd582f4b4c6b48205de7e0643c57df0df5615a3c176189be3fc461e9d18827b5d'

const RATE = 16_000
const WINDOW = 160_000
const FRAMES = 589
/** The model's receptive field and its hop, in samples (its metadata: receptive_field_size, _shift). */
const FIELD = 991
const SHIFT = 270
/** Speakers of each powerset class, in the model's order. */
const CLASSES: readonly (readonly number[])[] = [[], [0], [1], [2], [0, 1], [0, 2], [1, 2]]
const SPEAKERS = 3
/** Windows per run: batching saves about a quarter of the time per window (42 against 56 ms on one core). */
const BATCH = 4

export class SegmentationModelError extends Error {
  override name = 'SegmentationModelError'
}

export interface PyannoteOptions {
  /** Another copy of the model (tests: a missing or damaged file). */
  modelPath?: string
  /** onnxruntime threads; one leaves the other core to recognition, which runs beside diarization. */
  threads?: number
}

/** Sessions by model path: one per process, loaded on first use. */
const sessions = new Map<string, Promise<ort.InferenceSession>>()

async function loadSession(path: string, threads: number): Promise<ort.InferenceSession> {
  const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    throw new SegmentationModelError(`The speaker segmentation model ${path} cannot be read (${err.code}).`)
  })
  const digest = createHash('sha256').update(bytes).digest('hex')
  if (digest !== MODEL_SHA256) {
    throw new SegmentationModelError(
      `The speaker segmentation model ${path} is damaged (SHA-256 ${digest.slice(0, 12)}…, expected ${MODEL_SHA256.slice(0, 12)}…).`,
    )
  }
  return ort.InferenceSession.create(bytes, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  })
}

function session(path: string, threads: number): Promise<ort.InferenceSession> {
  const key = `${path}#${threads}`
  let loading = sessions.get(key)
  if (!loading) {
    loading = loadSession(path, threads)
    sessions.set(key, loading)
  }
  return loading
}

/**
 * Powerset log-probabilities of one window (frames × 7) decoded to local speakers. How many speak in a frame is the
 * median of the model's distribution over 0, 1 or 2 speakers (the count that errs least in expected missed plus
 * false-alarm speaker time), then the most likely class with that many; the most likely class alone calls nobody
 * or one speaker where the probability is spread over several one- or two-speaker classes.
 */
export function decodePowerset(logProbabilities: Float32Array, frames: number): LocalActivity {
  const classes = CLASSES.length
  const active = new Uint8Array(frames * SPEAKERS)
  const activeIfSpeech = new Uint8Array(frames * SPEAKERS)
  const p = new Float64Array(classes)
  for (let f = 0; f < frames; f++) {
    let total = 0
    for (let c = 0; c < classes; c++) {
      p[c] = Math.exp(logProbabilities[f * classes + c] as number)
      total += p[c] as number
    }
    const nobody = p[0] as number
    const one = (p[1] as number) + (p[2] as number) + (p[3] as number)
    const count = 2 * nobody >= total ? 0 : 2 * (nobody + one) >= total ? 1 : 2
    let bestSpeech = 1
    for (let c = 2; c < classes; c++) if ((p[c] as number) > (p[bestSpeech] as number)) bestSpeech = c
    const best = count === 0 ? 0 : mostLikely(p, count === 1 ? 1 : 4)
    for (const s of CLASSES[best] as number[]) active[f * SPEAKERS + s] = 1
    for (const s of CLASSES[bestSpeech] as number[]) activeIfSpeech[f * SPEAKERS + s] = 1
  }
  return { active, activeIfSpeech }
}

/** The most likely of the three classes from `first` (the one-speaker or the two-speaker classes). */
function mostLikely(p: Float64Array, first: number): number {
  let best = first
  for (let c = first + 1; c < first + 3; c++) if ((p[c] as number) > (p[best] as number)) best = c
  return best
}

export function createPyannoteSegmenter(options: PyannoteOptions = {}): Segmenter & {
  /** Loads and checks the model; rejects with SegmentationModelError when it is missing or damaged. */
  load(): Promise<void>
} {
  const path = options.modelPath ?? PYANNOTE_MODEL_PATH
  const threads = options.threads ?? 1
  const model = () => {
    const loading = session(path, threads)
    // A file fixed later (or a test's) is tried again on the next use.
    loading.catch(() => sessions.delete(`${path}#${threads}`))
    return loading
  }
  return {
    windowSamples: WINDOW,
    frames: FRAMES,
    speakers: SPEAKERS,
    frameStep: SHIFT / RATE,
    frameDuration: FIELD / RATE,
    async load() {
      await model()
    },
    async segment(windows, signal) {
      const net = await model()
      const out: LocalActivity[] = []
      for (let first = 0; first < windows.length; first += BATCH) {
        signal?.throwIfAborted()
        const batch = windows.slice(first, first + BATCH)
        const input = new Float32Array(batch.length * WINDOW)
        batch.forEach((w, i) => {
          input.set(w.length > WINDOW ? w.subarray(0, WINDOW) : w, i * WINDOW)
        })
        const result = await net.run({ x: new ort.Tensor('float32', input, [batch.length, 1, WINDOW]) })
        const y = (result.y as ort.Tensor).data as Float32Array
        const perWindow = FRAMES * CLASSES.length
        for (let i = 0; i < batch.length; i++)
          out.push(decodePowerset(y.subarray(i * perWindow, (i + 1) * perWindow), FRAMES))
      }
      return out
    },
  }
}
