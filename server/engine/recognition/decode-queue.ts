/**
 * At most `limit` decodes at once; the others wait in arrival order. Each PocketSphinx process takes a core and
 * about 130 MB, so running more than the cores at once only makes every caller slower.
 */
export class DecodeQueue {
  private running = 0
  private readonly waiting: Array<() => void> = []

  constructor(private readonly limit: number) {
    if (!(Number.isInteger(limit) && limit >= 1))
      throw new RangeError(`concurrency must be a positive integer`)
  }

  /** Runs `task` when a slot is free. A caller whose signal aborts while waiting leaves the queue at once. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal)
    try {
      return await task()
    } finally {
      this.release()
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted()
    if (this.running < this.limit) {
      this.running++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', leave)
        this.running++
        resolve()
      }
      const leave = () => {
        const i = this.waiting.indexOf(start)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(signal?.reason)
      }
      this.waiting.push(start)
      signal?.addEventListener('abort', leave, { once: true })
    })
  }

  private release() {
    this.running--
    this.waiting.shift()?.()
  }
}
