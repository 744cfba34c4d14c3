import { hasMarkup } from '../../schema/index.ts'
import { planUtterance, renderPlan } from './markup/index.ts'
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
  /** Whether inline markup is interpreted (second-generation model); otherwise brackets are read as words (2.7). */
  markup: boolean
  /** Caps every segment's audio-token budget; null keeps the segment's own (2.8 rule 5). */
  maxNewTokens: number | null
  signal?: AbortSignal
}

/**
 * The text-to-audio pipeline in front of a synthesizer: normalize, cut into segments (marked-up text in chunks of up
 * to ~530 characters with a 90 s budget), render each in order — marked-up chunks through the markup stage's plan of
 * SSML and non-speech sounds. A segment that reaches its token budget is cut off mid-speech and not regenerated, as
 * the spec's models do.
 */
export async function* speak(synth: Synthesizer, req: SpeakRequest): AsyncGenerator<Int16Array> {
  const text = normalizeText(req.text, { voiceLanguage: req.language })
  const markup = req.markup && hasMarkup(text)
  for (const segment of segmentForSynthesis(text, { locale: req.language, markup })) {
    const tokens = Math.min(segment.tokenBudget, req.maxNewTokens ?? Number.POSITIVE_INFINITY)
    let left = Math.floor((tokens / AUDIO_TOKENS_PER_SECOND) * OUTPUT_SAMPLE_RATE)
    const controller = new AbortController()
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal
    const job = { voice: req.voice, speed: req.speed, signal }
    const audio = markup
      ? renderPlan(planUtterance(segment.text, req.language), synth, job)
      : synth.synthesize({ ...job, text: segment.text })
    for await (const chunk of audio) {
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
