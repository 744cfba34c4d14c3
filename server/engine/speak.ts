import type { Synthesizer, VoiceParams } from './synthesizer.ts'
import { OUTPUT_SAMPLE_RATE } from './synthesizer.ts'
import { normalizeText, segmentForSynthesis } from './text/index.ts'

/** Audio tokens per second of speech (spec 2.8 rule 5). */
export const AUDIO_TOKENS_PER_SECOND = 25

export interface SpeakRequest {
  text: string
  voice: VoiceParams
  /** BCP 47 tag of the voice's language: decides normalization and sentence rules. */
  language: string
  speed: number
  /** Caps every segment's audio-token budget; null keeps the segment's own (2.8 rule 5). */
  maxNewTokens: number | null
  signal?: AbortSignal
}

/**
 * The text-to-audio pipeline in front of a synthesizer: normalize, cut into segments, render each in order. A segment
 * that reaches its token budget is cut off mid-speech and not regenerated, as the spec's models do.
 */
export async function* speak(synth: Synthesizer, req: SpeakRequest): AsyncGenerator<Int16Array> {
  const text = normalizeText(req.text, { voiceLanguage: req.language })
  for (const segment of segmentForSynthesis(text, { locale: req.language, markup: false })) {
    const tokens = Math.min(segment.tokenBudget, req.maxNewTokens ?? Number.POSITIVE_INFINITY)
    let left = Math.floor((tokens / AUDIO_TOKENS_PER_SECOND) * OUTPUT_SAMPLE_RATE)
    const controller = new AbortController()
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal
    for await (const chunk of synth.synthesize({
      text: segment.text,
      voice: req.voice,
      speed: req.speed,
      signal,
    })) {
      if (chunk.length >= left) {
        yield chunk.subarray(0, left)
        controller.abort()
        break
      }
      left -= chunk.length
      yield chunk
    }
    req.signal?.throwIfAborted()
  }
}
