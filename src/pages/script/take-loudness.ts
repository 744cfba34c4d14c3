import { integratedLoudness } from '../../../core/loudness.ts'
import { SAMPLE_RATE } from '../../../schema/index.ts'
import type { Take } from './takes-store.ts'

/**
 * A take's integrated loudness (BS.1770, LUFS) for the list and the loudness-matched A/B: the backend's figure where
 * it stored one, else measured here from the audio with the same meter (core/loudness.ts) — a take stored before
 * loudness was kept, or one the studio did not keep. Measured once per audio.
 */

const measured = new WeakMap<Int16Array, number>()

/** LUFS; −Infinity when not measurable (silent, or under one 400 ms block); null while the audio is not here yet. */
export function takeLoudness(
  take: Pick<Take, 'loudnessLufs' | 'pcm' | 'audioReady' | 'status' | 'erased'>,
): number | null {
  if (take.loudnessLufs !== null) return take.loudnessLufs
  if (take.erased || take.status === 'recording' || !take.audioReady) return null
  let lufs = measured.get(take.pcm)
  if (lufs === undefined) {
    lufs = integratedLoudness(take.pcm, SAMPLE_RATE)
    measured.set(take.pcm, lufs)
  }
  return lufs
}

/** "−19.3 LUFS" (one decimal: a tenth of a LU is about the smallest step anyone hears). */
export function formatLoudness(lufs: number): string {
  return `${lufs.toFixed(1).replace('-', '−')} LUFS`
}

/** Why a take shows no loudness ("—"). */
export function noLoudnessReason(take: Pick<Take, 'erased' | 'status' | 'audioReady'>): string {
  if (take.erased) return 'its audio was erased'
  if (take.status === 'recording') return 'measured when the take ends'
  if (!take.audioReady) return 'measured when its audio arrives'
  return 'too short or too quiet to measure'
}
