import type { VoiceParams } from '../synthesizer.ts'

/** Messages between the synthesizer pool and its eSpeak worker threads. */

export interface JobMessage {
  type: 'job'
  text: string
  ssml: boolean
  voice: VoiceParams
  speed: number
  /** Int32Array view: [ABORT] set to 1 stops synthesis; [CREDITS] counts chunks the consumer can still take. */
  control: SharedArrayBuffer
}

export const ABORT = 0
export const CREDITS = 1
/** Chunks (~0.1 s each) a worker may run ahead of its consumer before it waits: 30 s of audio, about 1.4 MB. */
export const CREDIT_WINDOW = 300

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'chunk'; pcm: Int16Array }
  | { type: 'done' }
  | { type: 'error'; message: string }
