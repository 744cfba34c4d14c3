/**
 * The classical speaker embedder: speaker statistics (statistics.ts) of the voiced frames, standardised by a fixed
 * population mean and spread (population.ts) so that every dimension weighs alike and cosine similarity measures
 * whether two voices depart from the average voice in the same direction, rather than how much all speech looks alike.
 */
import type { SpeakerEmbedder } from './embedder.ts'
import { POPULATION } from './population.ts'
import { analyzeSpeech, type Population, STATISTICS_DIMENSION, speakerStatistics } from './statistics.ts'

/** One second of voiced frames: less gives statistics too noisy to compare. */
export const MIN_VOICED_FRAMES = 100

/** Mean and standard deviation of each statistic over many voices. */
export function createMfccEmbedder(): SpeakerEmbedder {
  return {
    version: 'mfcc-stats-v1',
    dimension: STATISTICS_DIMENSION,
    embed(audio) {
      const track = analyzeSpeech(audio)
      const statistics = speakerStatistics(track, 0, track.features.count, MIN_VOICED_FRAMES)
      return statistics && standardize(statistics, POPULATION)
    },
  }
}

export function standardize(statistics: Float64Array, population: Population): Float32Array {
  return Float32Array.from(
    statistics,
    (x, d) => (x - (population.mean[d] as number)) / (population.scale[d] as number),
  )
}
