import { hasMarkup } from '../../schema/index.ts'
import { warpFormants } from './cloning/envelope.ts'
import { type DecodingSettings, ProsodyShaper, type Random } from './decoding/index.ts'
import { espeakRate } from './espeak/text.ts'
import { planUtterance, renderPlan } from './markup/index.ts'
import { lowpass, profiledVoice, renderProfile } from './model-profiles.ts'
import type { Synthesizer, VoiceParams } from './synthesizer.ts'
import { OUTPUT_SAMPLE_RATE } from './synthesizer.ts'
import { normalizeText, segmentForSynthesis } from './text/index.ts'

/** Audio tokens per second of speech (contract 2.8 rule 5). */
export const AUDIO_TOKENS_PER_SECOND = 25
const SAMPLES_PER_TOKEN = OUTPUT_SAMPLE_RATE / AUDIO_TOKENS_PER_SECOND

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
  /** The model id: picks its rendering profile (the 0.8 models' pacing and smoothing, model-profiles.ts). */
  model?: string
  /**
   * Sampled prosody with these controls (docs/decoding.md): every call is a fresh take. Absent, the rendering is
   * deterministic and neutral — the 0.8 models, which ignore the decoding fields (2.1 rule 4).
   */
  decoding?: DecodingSettings
  /** The draws' source of randomness; tests pass a seeded one. */
  random?: Random
  signal?: AbortSignal
}

/**
 * The text-to-audio pipeline in front of a synthesizer: normalize, cut into segments (marked-up text in chunks of up
 * to ~530 characters with a 90 s budget), render each in order — marked-up chunks through the markup stage's plan of
 * SSML and non-speech sounds, and with decoding controls through a sampled take of the segment's prosody. A segment
 * that reaches its token budget is cut off mid-speech and not regenerated, as the contract's models do.
 */
export async function* speak(synth: Synthesizer, req: SpeakRequest): AsyncGenerator<Int16Array> {
  const text = normalizeText(req.text, { voiceLanguage: req.language })
  const markup = req.markup && hasMarkup(text)
  const profile = renderProfile(req.model)
  const voice = profiledVoice(req.voice, profile)
  let first = true
  for (const segment of segmentForSynthesis(text, { locale: req.language, markup })) {
    // The segment's own cap is for its text at normal pace: slower speech takes longer to say the same words, and
    // would otherwise lose its end (a 240-character piece at speed 0.5 runs to about 40 s). max_new_tokens is as sent.
    const own = Math.ceil(segment.tokenBudget / Math.min(1, req.speed))
    const tokens = Math.min(own, req.maxNewTokens ?? Number.POSITIVE_INFINITY)
    let left = Math.floor((tokens / AUDIO_TOKENS_PER_SECOND) * OUTPUT_SAMPLE_RATE)
    const controller = new AbortController()
    const signal = req.signal ? AbortSignal.any([req.signal, controller.signal]) : controller.signal
    // Only the first segment keeps a listener waiting; the rest is made while the first plays.
    const job = { voice, speed: req.speed, background: !first, signal }
    let audio: AsyncIterable<Int16Array>
    if (req.decoding) {
      const shaper = new ProsodyShaper({
        decoding: req.decoding,
        random: req.random ?? Math.random,
        wpm: espeakRate(voice.rate, req.speed),
      })
      const plan = planUtterance(segment.text, req.language, { markup, shaper })
      audio = withHolds(renderPlan(plan, synth, job), shaper, segment.text, signal)
    } else {
      audio = markup
        ? renderPlan(planUtterance(segment.text, req.language), synth, job)
        : synth.synthesize({ ...job, text: segment.text })
    }
    if (profile.lowpassHz !== null) audio = lowpass(audio, profile.lowpassHz, OUTPUT_SAMPLE_RATE)
    // A cloned voice's vocal-tract length (cloning/envelope.ts); a scale of 1 would change nothing.
    if (voice.formantScale && voice.formantScale !== 1) audio = warpFormants(audio, voice.formantScale)
    // Before the budget: a segment's tokens count from its first sound.
    if (first) audio = fromFirstSound(audio)
    first = false
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

/** Below this a sample is silence (-60 dBFS). */
const SILENT = 33

/** Whether a stretch of audio holds no sound at all. */
export function isSilent(pcm: Int16Array): boolean {
  return pcm.every((s) => s <= SILENT && s >= -SILENT)
}
/** What is kept before the first sound, so a soft onset is not cut into. */
const LEAD_KEEP = Math.round(0.003 * OUTPUT_SAMPLE_RATE)
/** The most leading silence dropped: eSpeak's own lead-in is 7–40 ms; a longer pause was asked for. */
const LEAD_TRIM_MAX = Math.round(0.1 * OUTPUT_SAMPLE_RATE)

/**
 * The stream from its first sound. eSpeak opens every utterance with 7–40 ms of silence (more after a style's
 * SSML); at the start of a stream that silence is pure delay between Play and the first thing heard (#23), so it is
 * dropped, keeping 3 ms before the onset. Only the very start is touched, and never more than LEAD_TRIM_MAX.
 */
export async function* fromFirstSound(audio: AsyncIterable<Int16Array>): AsyncGenerator<Int16Array> {
  let skipped = 0
  let started = false
  for await (const chunk of audio) {
    if (started) {
      yield chunk
      continue
    }
    const onset = chunk.findIndex((s) => Math.abs(s) > SILENT)
    if (onset === -1 && skipped + chunk.length <= LEAD_TRIM_MAX) {
      skipped += chunk.length
      continue
    }
    const from =
      onset === -1
        ? LEAD_TRIM_MAX - skipped
        : Math.min(Math.max(0, onset - LEAD_KEEP), LEAD_TRIM_MAX - skipped)
    started = true
    // What was skipped before this chunk stays dropped; the LEAD_KEEP samples come from this chunk or are zeros.
    const keep = onset === -1 ? 0 : Math.min(LEAD_KEEP, skipped + onset) - (onset - from)
    if (keep > 0) yield new Int16Array(keep)
    yield chunk.subarray(from)
  }
  // Nothing but a short silence: it is the whole answer, kept as it was.
  if (!started && skipped > 0) yield new Int16Array(skipped)
}

/**
 * The segment's audio, then one audio token of silence for every "hold" the model draws at its end. Drawn lazily:
 * a take that never stops holding (greedy decoding after text that breaks off) runs into the segment's cap above.
 */
async function* withHolds(
  audio: AsyncIterable<Int16Array>,
  shaper: ProsodyShaper,
  segmentText: string,
  signal: AbortSignal,
): AsyncGenerator<Int16Array> {
  yield* audio
  while (!signal.aborted && shaper.holdOn(segmentText)) yield new Int16Array(SAMPLES_PER_TOKEN)
}
