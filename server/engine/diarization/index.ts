import { createClassicalDiarizer, type DiarizerOptions } from './classical.ts'
import type { Diarizer } from './diarizer.ts'

export {
  type Candidates,
  type ClassicalDiarizer,
  createClassicalDiarizer,
  type DiarizerOptions,
} from './classical.ts'
export { COUNT_DEFAULTS, type CountRule, chooseCount } from './count.ts'
export { type DiarizationError, diarizationError, type Turn } from './der.ts'
export type { Diarizer, SpeakerCount, SpeakerSpan } from './diarizer.ts'

export function createDiarizer(opts: DiarizerOptions = {}): Diarizer {
  return createClassicalDiarizer(opts)
}
