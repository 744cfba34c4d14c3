export { type NormalizeOptions, normalizeText } from './normalize.ts'
export {
  MARKUP_CHUNK_TOKEN_BUDGET,
  MAX_SEGMENT_CHARS,
  MAX_SENTENCE_CHARS,
  SENTENCE_TOKEN_BUDGET,
  type Segment,
  type SegmentOptions,
  segmentForSynthesis,
  splitSentences,
} from './segment.ts'
