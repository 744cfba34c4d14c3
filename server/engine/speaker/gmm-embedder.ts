/**
 * The GMM-UBM speaker embedder: the MAP-adapted mean supervector (gmm.ts) of a clip's voiced frames after
 * per-clip cepstral mean and variance normalisation, compared by cosine similarity. The background model is
 * `SPEAKER_MODEL` (speaker-model.ts), fitted by `bench/fit-speaker-model.ts` on speakers the benchmarks hold out.
 */
import type { SpeakerEmbedder } from './embedder.ts'
import { clipFeatures, componentsOf, GMM_FEATURES, supervector, type Ubm } from './gmm.ts'
import { analyzeSpeech } from './statistics.ts'

/** Voiced frames a clip needs: under about a second, the adapted means say more about the words than the voice. */
export const MIN_EMBEDDING_FRAMES = 100

export function createGmmEmbedder(ubm: Ubm, version = 'gmm-ubm-v1'): SpeakerEmbedder {
  return {
    version,
    dimension: componentsOf(ubm) * GMM_FEATURES,
    embed(audio) {
      const features = clipFeatures(analyzeSpeech(audio), MIN_EMBEDDING_FRAMES)
      return features && supervector(ubm, features)
    },
  }
}
