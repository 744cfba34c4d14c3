import { concat } from '../../core/concat.ts'

/**
 * One PCM16 buffer from several, in order: core's `concat` (core/concat.ts) under the name server/speech imports
 * through the engine's index. Re-export until server/speech imports core directly.
 */
export const concatPcm = (parts: readonly Int16Array[]): Int16Array => concat(parts, Int16Array)
