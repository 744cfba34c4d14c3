export { type DetectOptions, detectSpeech, type SpeechRegion } from './detect.ts'
export type { GateOptions, VadEvent } from './gate.ts'
export { createStreamingVad, type StreamingVad } from './stream.ts'
