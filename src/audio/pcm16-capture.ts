import { StreamResampler } from './stream-resampler.ts'

/**
 * Microphone samples to what a realtime transcription session takes: 24 kHz mono PCM16 little-endian, in 100 ms
 * pieces. Runs inside the capture worklet; pure and allocation-light, so it is tested in Node too.
 *
 * The context normally runs at 24 kHz already (the browser resamples the microphone); at any other rate the samples
 * go through a low-pass (two cascaded biquads at 10 kHz, so downsampling does not fold high frequencies into the
 * speech band) and the worklet's cubic resampler.
 */

export const CAPTURE_RATE = 24_000
export const CAPTURE_CHUNK_FRAMES = 2_400

/** RBJ low-pass biquad, direct form I. */
class LowPass {
  private readonly b0: number
  private readonly b1: number
  private readonly b2: number
  private readonly a1: number
  private readonly a2: number
  private x1 = 0
  private x2 = 0
  private y1 = 0
  private y2 = 0

  constructor(rate: number, cutoff: number, q = Math.SQRT1_2) {
    const w = (2 * Math.PI * cutoff) / rate
    const alpha = Math.sin(w) / (2 * q)
    const cos = Math.cos(w)
    const a0 = 1 + alpha
    this.b0 = (1 - cos) / 2 / a0
    this.b1 = (1 - cos) / a0
    this.b2 = (1 - cos) / 2 / a0
    this.a1 = (-2 * cos) / a0
    this.a2 = (1 - alpha) / a0
  }

  run(x: number): number {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2
    this.x2 = this.x1
    this.x1 = x
    this.y2 = this.y1
    this.y1 = y
    return y
  }
}

export class Pcm16Capture {
  private readonly resampler: StreamResampler | null
  private readonly filters: LowPass[]
  private chunk: Int16Array
  private filled = 0
  private readonly scratch = new Float32Array(1024)

  constructor(
    readonly inputRate: number,
    private readonly emit: (pcm: Int16Array) => void,
    readonly chunkFrames = CAPTURE_CHUNK_FRAMES,
  ) {
    this.resampler = inputRate === CAPTURE_RATE ? null : new StreamResampler(inputRate, CAPTURE_RATE)
    this.filters =
      inputRate > CAPTURE_RATE ? [new LowPass(inputRate, 10_000), new LowPass(inputRate, 10_000)] : []
    this.chunk = new Int16Array(chunkFrames)
  }

  /** Takes one block of mono float input (e.g. a 128-frame render quantum). */
  push(input: Float32Array): void {
    if (!this.resampler) {
      for (let i = 0; i < input.length; i++) this.put(input[i] as number)
      return
    }
    let read = 0
    const next = () => {
      if (read >= input.length) return undefined
      let x = input[read++] as number
      for (const f of this.filters) x = f.run(x)
      return x
    }
    for (;;) {
      const written = this.resampler.render(this.scratch, 0, next)
      for (let i = 0; i < written; i++) this.put(this.scratch[i] as number)
      if (written < this.scratch.length) return
    }
  }

  /** Sends what is gathered, shorter than a full piece (at the end of a session). */
  flush(): void {
    if (this.filled === 0) return
    this.emit(this.chunk.slice(0, this.filled))
    this.filled = 0
  }

  private put(x: number) {
    const clipped = x > 1 ? 1 : x < -1 ? -1 : x
    this.chunk[this.filled++] = clipped < 0 ? Math.round(clipped * 32768) : Math.round(clipped * 32767)
    if (this.filled === this.chunkFrames) {
      this.emit(this.chunk)
      this.chunk = new Int16Array(this.chunkFrames)
      this.filled = 0
    }
  }
}
