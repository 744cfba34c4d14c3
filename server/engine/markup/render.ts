/** Plays a markup plan: speech parts through the synthesizer as SSML, sound parts spliced in where they stand. */
import { OUTPUT_SAMPLE_RATE, type Synthesizer, type VoiceParams } from '../synthesizer.ts'
import type { UtterancePart } from './plan.ts'
import { synthesizeSound } from './sounds.ts'

export interface RenderJob {
  voice: VoiceParams
  speed: number
  /** As the synthesizer's job (synthesizer.ts): audio that follows what the listener has. */
  background?: boolean
  signal?: AbortSignal
}

/** eSpeak's 0–100 pitch scale mapped linearly onto a speaking F0 from a deep male to a high female voice. */
export function soundPitchHz(voice: VoiceParams): number {
  const pitch = Math.min(100, Math.max(0, voice.pitch))
  return 90 + (pitch / 100) * 170
}

/**
 * Streams the parts in order. Sounds are generated at once and are as long as a spoken phrase, so the next speech
 * job starts while the listener still hears the sound; no part is fetched ahead, which keeps one worker per stream.
 * `speed` applies to speech only: a laugh or a pause keeps its natural length. An abort ends the stream quietly, as
 * the synthesizer does.
 */
export async function* renderPlan(
  parts: UtterancePart[],
  synth: Synthesizer,
  job: RenderJob,
): AsyncGenerator<Int16Array> {
  // Once a part has been heard, the parts after it follow audio the listener already has.
  let background = job.background ?? false
  for (const part of parts) {
    if (job.signal?.aborted) return
    if (part.kind === 'sound') {
      yield synthesizeSound(part.sound, { pitchHz: soundPitchHz(job.voice), sampleRate: OUTPUT_SAMPLE_RATE })
    } else {
      yield* synth.synthesize({
        text: part.ssml,
        ssml: true,
        voice: job.voice,
        speed: job.speed,
        background,
        signal: job.signal,
      })
    }
    background = true
  }
}
