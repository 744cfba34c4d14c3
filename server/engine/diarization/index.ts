import type { Diarizer } from './diarizer.ts'
import { createSegmentationDiarizer, type SegmentationDiarizerOptions } from './segmented.ts'

export { type DiarizationError, diarizationError, type Turn } from './der.ts'
export type { Diarizer, SpeakerCount, SpeakerSpan } from './diarizer.ts'

export {
  createSegmentationDiarizer,
  SEGMENTATION_DEFAULTS,
  type SegmentationDiarizer,
  type SegmentationDiarizerOptions,
} from './segmented.ts'

/** The product's diarizer: the one on the segmentation model (segmented.ts). */
export function createDiarizer(opts: SegmentationDiarizerOptions = {}): Diarizer {
  return createSegmentationDiarizer(opts)
}
