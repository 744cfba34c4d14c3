/**
 * A fixed-capacity FIFO of float samples. It never grows, so the audio thread never allocates; writers must check
 * `space` first (the player's back-pressure keeps them under it).
 */
export class RingBuffer {
  private readonly data: Float32Array
  private readIndex = 0
  private count = 0

  constructor(readonly capacity: number) {
    this.data = new Float32Array(capacity)
  }

  get available(): number {
    return this.count
  }

  get space(): number {
    return this.capacity - this.count
  }

  /** Appends as many samples as fit; returns how many did. */
  write(samples: Float32Array): number {
    const n = Math.min(samples.length, this.space)
    const writeIndex = (this.readIndex + this.count) % this.capacity
    const first = Math.min(n, this.capacity - writeIndex)
    this.data.set(samples.subarray(0, first), writeIndex)
    this.data.set(samples.subarray(first, n), 0)
    this.count += n
    return n
  }

  /** The oldest sample, removed; undefined when empty. */
  shift(): number | undefined {
    if (this.count === 0) return undefined
    const value = this.data[this.readIndex]
    this.readIndex = (this.readIndex + 1) % this.capacity
    this.count--
    return value
  }

  /** Copies the oldest samples into `into` without removing them; returns how many there were to copy. */
  peek(into: Float32Array): number {
    const n = Math.min(into.length, this.count)
    const first = Math.min(n, this.capacity - this.readIndex)
    into.set(this.data.subarray(this.readIndex, this.readIndex + first), 0)
    into.set(this.data.subarray(0, n - first), first)
    return n
  }

  clear() {
    this.readIndex = 0
    this.count = 0
  }
}
