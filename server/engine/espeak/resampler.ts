import libsamplerate from '@alexanderolsen/libsamplerate-js'
import { concat } from '../../../core/concat.ts'

// A UMD bundle: Node sees only its default export.
const { ConverterType, create } = libsamplerate
type SRC = Awaited<ReturnType<typeof create>>

/**
 * Streaming PCM16 sample-rate conversion with libsamplerate (sinc, medium quality). libsamplerate keeps filter state
 * across calls but has no flush, so the tail is pushed out with silence and the output trimmed to the exact length.
 */
export class StreamResampler {
  private inputFrames = 0
  private outputFrames = 0

  private constructor(
    private readonly src: SRC,
    private readonly ratio: number,
  ) {}

  static async create(fromRate: number, toRate: number): Promise<StreamResampler> {
    const src = await create(1, fromRate, toRate, { converterType: ConverterType.SRC_SINC_MEDIUM_QUALITY })
    return new StreamResampler(src, toRate / fromRate)
  }

  push(samples: Int16Array): Int16Array {
    if (samples.length === 0) return new Int16Array(0)
    this.inputFrames += samples.length
    return this.emit(this.src.full(toFloat(samples)))
  }

  /** The remaining output, so that the total is round(inputFrames × ratio). */
  flush(): Int16Array {
    const expected = Math.round(this.inputFrames * this.ratio)
    const parts: Int16Array[] = []
    let missing = expected - this.outputFrames
    // The filter's delay is a few dozen samples; a handful of silent blocks always pushes it out.
    for (let i = 0; missing > 0 && i < 8; i++) {
      const out = this.emit(this.src.full(new Float32Array(1024)), missing)
      parts.push(out)
      missing -= out.length
    }
    return concat(parts, Int16Array)
  }

  close() {
    this.src.destroy()
  }

  private emit(floats: Float32Array, limit = Number.POSITIVE_INFINITY): Int16Array {
    const n = Math.min(floats.length, limit)
    const out = new Int16Array(n)
    for (let i = 0; i < n; i++) {
      const v = Math.round((floats[i] ?? 0) * 32768)
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
    }
    this.outputFrames += n
    return out
  }
}

function toFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length)
  for (let i = 0; i < samples.length; i++) out[i] = (samples[i] ?? 0) / 32768
  return out
}
