export * from './prosody-model.ts'
export {
  applyTemperature,
  type DecodingSettings,
  decodingDistribution,
  filterLogits,
  minP,
  type Random,
  sampleToken,
  seededRandom,
  softmax,
  topK,
  topP,
} from './sampler.ts'
export { type Draw, ProsodyShaper, type ProsodyShaperOptions } from './shaper.ts'
