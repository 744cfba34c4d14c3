/**
 * The engine's synthesis contract. Every synthesizer — eSpeak NG today, a neural model later — turns one job into
 * 24 kHz mono PCM16 chunks as they are produced, and stops at once when the job's signal aborts.
 */

export const OUTPUT_SAMPLE_RATE = 24_000

/** How one voice is rendered by a formant synthesizer; the neutral point of every scale is eSpeak's default. */
export interface VoiceParams {
  /** eSpeak NG voice identifier, optionally with a `+variant`. */
  espeakVoice: string
  /** Base pitch, 0–100 (eSpeak default 50). */
  pitch: number
  /** Pitch range, 0–100 (eSpeak default 50). */
  range: number
  /** Speaking rate in words per minute at speed 1.0 (eSpeak default 175). */
  rate: number
  /**
   * Vocal-tract scale applied after synthesis (cloned voices, cloning/envelope.ts): formants move up by this factor,
   * pitch stays. Absent means 1.
   */
  formantScale?: number
}

export interface SynthesisJob {
  /** Plain text, escaped before eSpeak sees it; or, with `ssml`, an SSML fragment the markup stage built. */
  text: string
  ssml?: boolean
  voice: VoiceParams
  /** Multiplier on the voice's rate (0.25–4.0 in the API). */
  speed: number
  /**
   * Audio that follows what a listener already has (a request's later segments): it may give way to a job whose
   * request is still waiting for its first audio. A synthesizer may ignore it.
   */
  background?: boolean
  signal?: AbortSignal
}

export interface SynthesizerStats {
  workers: number
  busy: number
  queued: number
  /** Of them, the lower-priority workers for background jobs, where a synthesizer has such (espeak/pool.ts). */
  background?: { workers: number; busy: number }
}

export interface Synthesizer {
  readonly sampleRate: typeof OUTPUT_SAMPLE_RATE
  synthesize(job: SynthesisJob): AsyncIterable<Int16Array>
  readonly stats: SynthesizerStats
  close(): Promise<void>
}
