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
/**
 * A job's first chunk is posted as soon as it is resampled (eSpeak hands out ~0.1 s at a time); later ones gather
 * at least this many samples (0.25 s at 24 kHz) per message.
 */
export const POST_SAMPLES = 6000
/** Chunks (0.25–0.35 s each) a worker may run ahead of its consumer before it waits: about 30 s of audio, 1.4 MB. */
export const CREDIT_WINDOW = 100

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'chunk'; pcm: Int16Array }
  | { type: 'done' }
  | { type: 'error'; message: string }
