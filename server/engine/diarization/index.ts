import { createClassicalDiarizer, type DiarizerOptions } from './classical.ts'
import type { Diarizer } from './diarizer.ts'

export type { DiarizerOptions } from './classical.ts'
export { type DiarizationError, diarizationError, type Turn } from './der.ts'
export type { Diarizer, SpeakerCount, SpeakerSpan } from './diarizer.ts'

export function createDiarizer(opts: DiarizerOptions = {}): Diarizer {
  return createClassicalDiarizer(opts)
}
