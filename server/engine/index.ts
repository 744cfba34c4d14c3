export { type CompressedFormat, encodeCompressed } from './codecs/encode.ts'
export { createEspeakSynthesizer, type EspeakSynthesizerOptions } from './espeak/pool.ts'
export {
  OUTPUT_SAMPLE_RATE,
  type SynthesisJob,
  type Synthesizer,
  type SynthesizerStats,
  type VoiceParams,
} from './synthesizer.ts'
export { voiceParamsFor } from './voice-params.ts'
