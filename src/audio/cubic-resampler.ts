/**
 * Streaming cubic (Catmull-Rom) resampling for the worklet. The read position is fractional and carried from one
 * render quantum to the next, so 24 kHz maps onto 44.1 or 48 kHz without a seam every 128 frames.
 */
export class CubicResampler {
  /** Source frames advanced per output frame. */
  readonly step: number
  /** Position between window[1] and window[2], in [0, 1). */
  private frac = 0
  private readonly window = new Float32Array(4)

  constructor(sourceRate: number, outputRate: number) {
    this.step = sourceRate / outputRate
  }

  /**
   * Fills `out` from `offset` on, pulling source samples from `next` as the position advances. Returns the index
   * after the last frame written: less than `out.length` when the source ran dry.
   */
  render(out: Float32Array, offset: number, next: () => number | undefined): number {
    const w = this.window
    let i = offset
    while (i < out.length) {
      while (this.frac >= 1) {
        const sample = next()
        if (sample === undefined) return i
        w[0] = w[1] ?? 0
        w[1] = w[2] ?? 0
        w[2] = w[3] ?? 0
        w[3] = sample
        this.frac -= 1
      }
      out[i++] = catmullRom(w[0] ?? 0, w[1] ?? 0, w[2] ?? 0, w[3] ?? 0, this.frac)
      this.frac += this.step
    }
    return i
  }

  /** Forgets the window, for a new stream. */
  reset() {
    this.window.fill(0)
    this.frac = 0
  }
}

function catmullRom(p0: number, p1: number, p2: number, p3: number, t: number): number {
  return p1 + 0.5 * t * (p2 - p0 + t * (2 * p0 - 5 * p1 + 4 * p2 - p3 + t * (3 * (p1 - p2) + p3 - p0)))
}
