/**
 * A realtime session's uncommitted audio: 16 kHz samples addressed on the session clock (samples received since the
 * first append), kept as the chunks they arrived in so that appending never copies. Reading copies one range out,
 * with or without dropping what lies before its end.
 */
export class SampleBuffer {
  private chunks: Float32Array[] = []
  /** Session sample of the first sample held. */
  private first = 0
  private held = 0

  /** Session sample at which the held audio starts. */
  get start(): number {
    return this.first
  }

  /** Samples held. */
  get length(): number {
    return this.held
  }

  /** Session sample just past the newest held sample: the session clock, as every sample received passes here. */
  get end(): number {
    return this.first + this.held
  }

  push(samples: Float32Array): void {
    if (samples.length === 0) return
    this.chunks.push(samples)
    this.held += samples.length
  }

  /** A copy of session samples [start, end), as far as they are held, without dropping them. */
  peek(start: number, end: number): Float32Array {
    const from = Math.max(start, this.first)
    const to = Math.min(end, this.end)
    const out = new Float32Array(Math.max(0, to - from))
    let at = this.first
    for (const chunk of this.chunks) {
      const c0 = Math.max(from, at)
      const c1 = Math.min(to, at + chunk.length)
      if (c1 > c0) out.set(chunk.subarray(c0 - at, c1 - at), c0 - from)
      at += chunk.length
    }
    return out
  }

  /** Like `peek`, then drops everything before `end`: a committed turn's audio leaves the buffer. */
  take(start: number, end: number): Float32Array {
    const out = this.peek(start, end)
    this.dropBefore(Math.min(end, this.end))
    return out
  }

  /** Drops held audio before session sample `at`. */
  dropBefore(at: number): void {
    while (this.chunks.length > 0 && this.first < at) {
      const oldest = this.chunks[0] as Float32Array
      const drop = Math.min(oldest.length, at - this.first)
      if (drop === oldest.length) this.chunks.shift()
      else this.chunks[0] = oldest.subarray(drop)
      this.first += drop
      this.held -= drop
    }
  }
}
