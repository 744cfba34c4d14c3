/**
 * How each model renders, apart from the voice. The second-generation model speaks each voice as the catalog sets it
 * and samples its prosody (decoding/); the three 0.8 models are deterministic and differ in pacing and smoothing,
 * from the fullest (mini) to the smallest (nano): a smaller model speaks a little quicker, with a flatter melody
 * (its F0 contour smoothed towards the voice's mean) and a duller sound (the spectrum smoothed above a cutoff).
 * docs/decoding.md gives the measured differences.
 */
import { Biquad, lowPass } from '../../core/biquad.ts'
import type { ModelId } from '../../schema/index.ts'
import type { VoiceParams } from './synthesizer.ts'

export interface RenderProfile {
  /** Multiplier on the voice's speaking rate. */
  pace: number
  /** Multiplier on the voice's pitch range: below 1 smooths the F0 contour. */
  range: number
  /** Cutoff of a 4th-order low-pass on the output, or null for the full band (24 kHz output: up to 12 kHz). */
  lowpassHz: number | null
}

const FULL: RenderProfile = { pace: 1, range: 1, lowpassHz: null }

export const RENDER_PROFILES: Record<ModelId, RenderProfile> = {
  'svc-tts-2-latest': FULL,
  // The default model renders as the engine always has.
  'svc-tts-mini-0.8': FULL,
  'svc-tts-micro-0.8': { pace: 1.08, range: 0.65, lowpassHz: 6500 },
  'svc-tts-nano-0.8': { pace: 1.16, range: 0.35, lowpassHz: 4000 },
}

/** The profile of a model id; unknown or absent ids render in full. */
export function renderProfile(model: string | undefined): RenderProfile {
  return model !== undefined && Object.hasOwn(RENDER_PROFILES, model)
    ? RENDER_PROFILES[model as ModelId]
    : FULL
}

/** The voice as a profile speaks it. */
export function profiledVoice(voice: VoiceParams, profile: RenderProfile): VoiceParams {
  if (profile.pace === 1 && profile.range === 1) return voice
  return {
    ...voice,
    rate: Math.round(voice.rate * profile.pace),
    range: Math.max(0, Math.min(100, Math.round(voice.range * profile.range))),
  }
}

/** Streams chunks through a 4th-order Butterworth low-pass, keeping its state from chunk to chunk. */
export async function* lowpass(
  chunks: AsyncIterable<Int16Array>,
  cutoffHz: number,
  sampleRate: number,
): AsyncGenerator<Int16Array> {
  // Two RBJ sections (core/biquad.ts) with the Butterworth Q of each: 4th order.
  const sections = [
    new Biquad(lowPass(sampleRate, cutoffHz, 0.5412)),
    new Biquad(lowPass(sampleRate, cutoffHz, 1.3066)),
  ]
  for await (const chunk of chunks) {
    const out = new Int16Array(chunk.length)
    for (let i = 0; i < chunk.length; i++) {
      let y = chunk[i] ?? 0
      for (const s of sections) y = s.step(y)
      out[i] = Math.max(-32768, Math.min(32767, Math.round(y)))
    }
    yield out
  }
}
