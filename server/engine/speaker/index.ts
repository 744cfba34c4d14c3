import type { SpeakerEmbedder } from './embedder.ts'
import { createMfccEmbedder } from './mfcc-embedder.ts'

export { cosineSimilarity, type SpeakerEmbedder } from './embedder.ts'
export { type RecordingScreen, screenRecording } from './screen.ts'

/**
 * Cosine similarity from which two clips are taken for the same voice: the equal-error point of
 * `bench/speaker-eer.ts` on 3–5 s AMI segments with the normalization fitted without the pair's files (EER ≈ 17%).
 */
export const DEFAULT_VERIFICATION_THRESHOLD = 0.45

export function createSpeakerEmbedder(): SpeakerEmbedder {
  return createMfccEmbedder()
}
