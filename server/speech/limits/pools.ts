import { RedisLimits, type RedisLimitsOptions } from './redis-slots.ts'
import { MemorySlotPool, type SlotPool } from './slots.ts'

/** Where the limits are kept when several instances share them (`REDIS_URL`; docs/deploy.md, Shared limits). */
export type SharedLimitsOptions = Pick<RedisLimitsOptions, 'url' | 'prefix' | 'leaseTtlMs' | 'warn'>

export interface PoolLimits {
  ttsPerOwner: number
  ttsWaiters: number
  asrPerOwner: number
  cloningConcurrency: number
  cloningQueue: number
}

export interface SlotPools {
  /** Generations per owner (HTTP and the text-input WebSocket). */
  tts: SlotPool
  /** Transcription uploads and realtime sessions, combined. */
  asr: SlotPool
  /** The cloning queue: one owner for the whole instance (or deployment), see voice-service.ts. */
  cloning: SlotPool
  /** What /health says of the limits' store; `reachable: false` means new work is refused with 503. */
  health(): Promise<{ store: 'memory' | 'redis'; reachable: boolean; latency_ms?: number; error?: string }>
  close(): Promise<void>
}

/** The three pools of contract 8: in this process, or in Redis shared with every other instance when `shared` is given. */
export async function openSlotPools(limits: PoolLimits, shared?: SharedLimitsOptions): Promise<SlotPools> {
  if (!shared) {
    return {
      tts: new MemorySlotPool(limits.ttsPerOwner, limits.ttsWaiters),
      asr: new MemorySlotPool(limits.asrPerOwner),
      cloning: new MemorySlotPool(limits.cloningConcurrency, limits.cloningQueue),
      health: async () => ({ store: 'memory', reachable: true }),
      close: async () => {},
    }
  }
  const redis = await RedisLimits.open(shared)
  return {
    tts: redis.pool('tts', limits.ttsPerOwner, limits.ttsWaiters),
    asr: redis.pool('asr', limits.asrPerOwner),
    cloning: redis.pool('cloning', limits.cloningConcurrency, limits.cloningQueue),
    health: () => redis.health(),
    close: () => redis.close(),
  }
}
