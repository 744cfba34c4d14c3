import { Biquad, lowPass } from '../../core/biquad.ts'
import { CubicResampler } from './cubic-resampler.ts'

/**
 * Microphone samples to what a realtime transcription session takes: 24 kHz mono PCM16 little-endian, in 100 ms
 * pieces. Runs inside the capture worklet; pure and allocation-light, so it is tested in Node too.
 *
 * The context normally runs at 24 kHz already (the browser resamples the microphone); at any other rate the samples
 * go through a low-pass (two cascaded biquads at 10 kHz, core/biquad.ts, so downsampling does not fold high frequencies into the
 * speech band) and the worklet's cubic resampler.
 */

export const CAPTURE_RATE = 24_000
export const CAPTURE_CHUNK_FRAMES = 2_400

export class Pcm16Capture {
  private readonly resampler: CubicResampler | null
  private readonly filters: Biquad[]
  private chunk: Int16Array
  private filled = 0
  private readonly scratch = new Float32Array(1024)

  constructor(
    readonly inputRate: number,
    private readonly emit: (pcm: Int16Array) => void,
    readonly chunkFrames = CAPTURE_CHUNK_FRAMES,
  ) {
    this.resampler = inputRate === CAPTURE_RATE ? null : new CubicResampler(inputRate, CAPTURE_RATE)
    this.filters =
      inputRate > CAPTURE_RATE
        ? [new Biquad(lowPass(inputRate, 10_000)), new Biquad(lowPass(inputRate, 10_000))]
        : []
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
      for (const f of this.filters) x = f.step(x)
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
