/**
 * The GMM-UBM speaker embedder: the MAP-adapted mean supervector (gmm.ts) of a clip's voiced frames after
 * per-clip cepstral mean and variance normalisation, compared by cosine similarity. The background model is
 * `SPEAKER_MODEL` (speaker-model.ts), fitted by `bench/fit-speaker-model.ts` on speakers the benchmarks hold out.
 *
 * Two recipes share the model:
 * - `gmm-ubm-v1`: relevance factor 16, the supervector as it is;
 * - `gmm-ubm-v2`: relevance factor 8 (short clips move the means further from the background model, so more of
 *   the clip's own voice is kept), then nuisance attribute projection (nap.ts, `SPEAKER_NAP`): the directions of
 *   within-speaker, across-recording variation are removed. Measured against v1 in docs/voices-and-consents.md.
 */
import type { SpeakerEmbedder } from './embedder.ts'
import { clipFeatures, componentsOf, GMM_FEATURES, supervector, type Ubm } from './gmm.ts'
import { projectOut } from './nap.ts'
import { analyzeSpeech } from './statistics.ts'

/** Voiced frames a clip needs: under about a second, the adapted means say more about the words than the voice. */
export const MIN_EMBEDDING_FRAMES = 100

export interface GmmRecipe {
  version: string
  /** MAP relevance factor of the adapted means. */
  relevance: number
  /** Orthonormal nuisance directions removed from every supervector (none for v1). */
  nap: readonly Float32Array[]
}

export const GMM_UBM_V1: GmmRecipe = { version: 'gmm-ubm-v1', relevance: 16, nap: [] }
/** v2's relevance factor: chosen with the projection on the fitting fold (docs/voices-and-consents.md). */
export const V2_RELEVANCE = 8
/** How many nuisance directions v2 removes (of 2048 dimensions). */
export const V2_NAP_DIRECTIONS = 8
export const gmmUbmV2 = (nap: readonly Float32Array[]): GmmRecipe => ({
  version: 'gmm-ubm-v2',
  relevance: V2_RELEVANCE,
  nap,
})

export function createGmmEmbedder(ubm: Ubm, recipe: GmmRecipe = GMM_UBM_V1): SpeakerEmbedder {
  return {
    version: recipe.version,
    dimension: componentsOf(ubm) * GMM_FEATURES,
    embed(audio) {
      const features = clipFeatures(analyzeSpeech(audio), MIN_EMBEDDING_FRAMES)
      return features && projectOut(supervector(ubm, features, recipe.relevance), recipe.nap)
    },
  }
}
