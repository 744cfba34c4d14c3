export { type CompressedFormat, encodeCompressed } from './codecs/encode.ts'
export type { DecodingSettings } from './decoding/index.ts'
export { createEspeakSynthesizer, type EspeakSynthesizerOptions } from './espeak/pool.ts'
export { normalizeLoudness, TARGET_LUFS } from './loudness.ts'
export { AUDIO_TOKENS_PER_SECOND, isSilent, type SpeakRequest, speak } from './speak.ts'
export {
  OUTPUT_SAMPLE_RATE,
  type SynthesisJob,
  type Synthesizer,
  type SynthesizerStats,
  type VoiceParams,
} from './synthesizer.ts'
export { voiceParamsFor } from './voice-params.ts'
