/**
 * Decoding of uploaded audio (voice references, consent recordings, files to transcribe) to mono float PCM, at the
 * file's own rate or resampled, e.g. to 16 kHz for speech recognition.
 *
 * Accepted: WAV (PCM 8/16/24/32-bit, 32/64-bit float, any channel count), MP3, Ogg (Opus, Vorbis), AAC (ADTS),
 * FLAC, WebM/Matroska (Opus, AAC, MP3, FLAC, PCM) and MP4/M4A/MOV (AAC, MP3, Opus, FLAC, PCM). The format is told
 * by the bytes, never by a file name. Everything is decoded by WASM and JavaScript from npm: no native addon, no
 * ffmpeg. The work happens in worker threads (decode-pool.ts says why), in decode-core.ts.
 */

import { sniffFormat } from '../../../schema/audio-format.ts'
import type { DecodedAudio } from './decode-core.ts'
import { AudioDecodeError } from './decode-error.ts'
import { decodeInWorker } from './decode-pool.ts'

export { sniffFormat, type UploadFormat } from '../../../schema/audio-format.ts'
export type { DecodedAudio } from './decode-core.ts'
export { AudioDecodeError, type AudioDecodeErrorCode } from './decode-error.ts'

export interface DecodeOptions {
  /** Resample to this rate in Hz (e.g. 16000 for speech recognition); the file's own rate when absent. */
  targetRate?: number
  /**
   * Longer audio fails with `too_long` as soon as decoding passes this point. A 25 MiB upload of 6 kbit/s Opus lasts
   * nine hours, which would not fit in memory as float samples. Default: one hour.
   */
  maxDurationSeconds?: number
  /** A decode still running after this is stopped and fails with `corrupt_audio`. Default: five minutes. */
  timeoutMs?: number
}

const DEFAULT_MAX_DURATION_SECONDS = 3600
/**
 * Decoding runs at about 60–250× real time and resampling at about 50× (CPU time, decode-speed.ts), so the longest
 * audio allowed, an hour, takes two minutes at worst; only a decoder gone astray on a malformed file takes longer.
 */
const DEFAULT_TIMEOUT_MS = 300_000

export async function decodeAudio(bytes: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedAudio> {
  const { targetRate } = opts
  // libsamplerate converts within a ratio of 256 either way; a rate outside this range is a caller's bug.
  if (
    targetRate !== undefined &&
    !(Number.isInteger(targetRate) && targetRate >= 1000 && targetRate <= 384_000)
  ) {
    throw new RangeError(`targetRate must be an integer from 1000 to 384000 Hz, not ${targetRate}`)
  }
  // Checked here too, so that a file of the wrong kind costs no worker.
  if (!sniffFormat(bytes)) {
    throw new AudioDecodeError('unsupported_format', 'Not a WAV, MP3, Ogg, AAC, FLAC, WebM or MP4 audio file')
  }
  const options = { targetRate, maxDurationSeconds: opts.maxDurationSeconds ?? DEFAULT_MAX_DURATION_SECONDS }
  return decodeInWorker(bytes, options, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)
}
