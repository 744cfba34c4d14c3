import type { JitterCounters } from './jitter-buffer.ts'

/** Messages between PcmPlayer (main thread) and the 'pcm-player' worklet processor. */

export const PROCESSOR_NAME = 'pcm-player'
export const SOURCE_RATE = 24_000

export type ToProcessor =
  /** `stream` numbers the stream so late counters of a previous one can be told apart. */
  /** `earliestMs`: the least audio an early start may begin with (jitter-buffer.ts). */
  | { type: 'start'; stream: number; prebufferMs: number; earliestMs: number }
  /** Transferred, not copied. */
  | { type: 'chunk'; samples: Float32Array }
  | { type: 'end' }
  | { type: 'stop' }

export type FromProcessor =
  | { type: 'stats'; stream: number; counters: JitterCounters }
  /** The first audible sample of the stream left the worklet in the quantum that began at context frame `frame`. */
  | { type: 'first-sample'; stream: number; frame: number }

export interface ProcessorOptions {
  capacityFrames: number
  fadeMs: number
}
