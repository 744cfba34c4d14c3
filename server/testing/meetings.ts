import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The real meeting excerpts with reference speaker turns: `DIARIZATION_DATA` when set, else `shared/data/diarization`
 * beside the repository, else the workplace's copy (a clone elsewhere, such as CI's, still finds it).
 */
const CANDIDATES = [
  process.env.DIARIZATION_DATA,
  new URL('../../../shared/data/diarization/', import.meta.url).pathname,
  '/work/shared/data/diarization',
].filter((dir): dir is string => Boolean(dir))

export const MEETINGS_DIR =
  CANDIDATES.find((dir) => existsSync(join(dir, 'train.rttm'))) ?? (CANDIDATES[0] as string)

/** The path of one excerpt, such as `trn08.wav`. */
export const meetingFile = (name: string): string => join(MEETINGS_DIR, name)
