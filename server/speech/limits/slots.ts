/**
 * Per-owner concurrency slots (contract 8): a fixed number of slots per organization (or legacy key), an optional
 * bounded FIFO of waiters with a deadline. A slot is released exactly once, however often release() is called.
 *
 * Two implementations share this interface: `MemorySlotPool` below (one process; the default) and `RedisSlotPool`
 * (limits/redis-slots.ts; every instance on one Redis together, `REDIS_URL`). Routes only see `SlotPool`.
 */
export interface Slot {
  release(): void
}

export type AcquireResult = { slot: Slot } | { rejected: 'full' | 'timeout' }

export interface SlotPool {
  /** Slots per owner. */
  readonly limit: number
  /** How many requests of one owner may wait for a slot at once; more are rejected at once. */
  readonly maxWaiters: number
  /** Whether `owner` could take a slot right now (across every instance sharing the pool). */
  available(owner: string): Promise<boolean>
  /**
   * Takes a slot now, or waits up to `waitMs` in line (when the line has room); aborting leaves the line, and a signal
   * aborted already gets no slot at all. When the shared store cannot be reached it throws the contract's 503
   * (limits/unavailable.ts): never work without a limit.
   */
  acquire(owner: string, waitMs?: number, signal?: AbortSignal): Promise<AcquireResult>
  /** Slots this process holds now (of one owner, or all): what a leak test of one instance looks at. */
  held(owner?: string): number
}

interface Waiter {
  grant(slot: Slot): void
  timer: NodeJS.Timeout
}

interface OwnerState {
  held: number
  waiters: Waiter[]
}

/** The slots of one process, in memory: right whenever a single instance serves the API. */
export class MemorySlotPool implements SlotPool {
  private readonly owners = new Map<string, OwnerState>()

  constructor(
    readonly limit: number,
    readonly maxWaiters = 0,
  ) {}

  async available(owner: string): Promise<boolean> {
    return (this.owners.get(owner)?.held ?? 0) < this.limit
  }

  acquire(owner: string, waitMs = 0, signal?: AbortSignal): Promise<AcquireResult> {
    // An aborted signal never fires 'abort' again: a request already given up would wait out the whole deadline.
    if (signal?.aborted) return Promise.resolve({ rejected: 'timeout' })
    const state = this.state(owner)
    if (state.held < this.limit) return Promise.resolve({ slot: this.grant(owner, state) })
    if (waitMs <= 0 || state.waiters.length >= this.maxWaiters) return Promise.resolve({ rejected: 'full' })
    return new Promise((resolve) => {
      const leave = (result: AcquireResult) => {
        clearTimeout(waiter.timer)
        signal?.removeEventListener('abort', onAbort)
        state.waiters.splice(state.waiters.indexOf(waiter), 1)
        this.forget(owner, state)
        resolve(result)
      }
      const onAbort = () => leave({ rejected: 'timeout' })
      const waiter: Waiter = {
        grant: (slot) => {
          clearTimeout(waiter.timer)
          signal?.removeEventListener('abort', onAbort)
          resolve({ slot })
        },
        timer: setTimeout(() => leave({ rejected: 'timeout' }), waitMs),
      }
      state.waiters.push(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  held(owner?: string): number {
    if (owner !== undefined) return this.owners.get(owner)?.held ?? 0
    let total = 0
    for (const s of this.owners.values()) total += s.held
    return total
  }

  private state(owner: string): OwnerState {
    let state = this.owners.get(owner)
    if (!state) {
      state = { held: 0, waiters: [] }
      this.owners.set(owner, state)
    }
    return state
  }

  private grant(owner: string, state: OwnerState): Slot {
    state.held++
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        // Hand the slot straight to the first waiter, so a newcomer cannot overtake the line.
        const next = state.waiters.shift()
        if (next) {
          state.held--
          next.grant(this.grant(owner, state))
          return
        }
        state.held--
        this.forget(owner, state)
      },
    }
  }

  private forget(owner: string, state: OwnerState) {
    if (state.held === 0 && state.waiters.length === 0) this.owners.delete(owner)
  }
}
