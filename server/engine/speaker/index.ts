import type { SpeakerEmbedder } from './embedder.ts'
import { createGmmEmbedder, gmmUbmV2 } from './gmm-embedder.ts'
import { SPEAKER_MODEL } from './speaker-model.ts'
import { SPEAKER_NAP } from './speaker-nap.ts'

export { cosineSimilarity, type SpeakerEmbedder, verificationScore } from './embedder.ts'
export { MIN_VERIFIED_SPEECH_SECONDS, type RecordingScreen, screenRecording } from './screen.ts'

/**
 * Cosine similarity of gmm-ubm-v2 embeddings (projected GMM-UBM supervectors) from which two clips are taken for
 * the same voice: the lowest threshold that lets at most 5% of same-room impostors through on fold 0 of
 * `npx tsx bench/voices-real.ts` (scored by models fitted without fold 0), checked on held-out fold 1; see
 * docs/voices-and-consents.md.
 */
export const DEFAULT_VERIFICATION_THRESHOLD = 0.11

export function createSpeakerEmbedder(): SpeakerEmbedder {
  return createGmmEmbedder(SPEAKER_MODEL, gmmUbmV2(SPEAKER_NAP))
}
