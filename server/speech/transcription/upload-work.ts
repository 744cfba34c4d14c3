import type { FastifyBaseLogger } from 'fastify'
import { AudioDecodeError, decodeAudio } from '../../engine/codecs/decode.ts'
import type { Diarizer } from '../../engine/diarization/diarizer.ts'
import { type Recognizer, RecognizerUnavailableError } from '../../engine/recognition/recognizer.ts'
import { type ApiError, badRequest, recognitionUnavailable } from '../errors.ts'
import type { TranscriptionOptions } from './options.ts'
import { RATE, transcribeAudio } from './pipeline.ts'
import type { TranscriptParts } from './transcript-formats.ts'

/** What the work of an upload needs, on whichever instance runs it. */
export interface TranscriptionEngines {
  recognizer: Recognizer
  /** Null when diarization is switched off in this deployment. */
  diarizer: Diarizer | null
}

/**
 * Longest decoded audio of one upload. 25 MiB of low-bitrate Opus could last for hours; an hour of 16 kHz float samples
 * is 230 MB, the most one upload may hold in memory.
 */
const MAX_AUDIO_SECONDS = 3600

function decodeFailure(err: AudioDecodeError): ApiError {
  switch (err.code) {
    case 'unsupported_format':
      return badRequest(
        `The file is not audio in a supported format (WAV, MP3, OGG, AAC, FLAC, WebM, MP4): ${err.message}`,
        'file',
      )
    case 'corrupt_audio':
      return badRequest(`The audio file is damaged or holds no audio: ${err.message}`, 'file')
    case 'too_long':
      return badRequest(`The audio is longer than the limit for one upload: ${err.message}`, 'file')
    case 'decoder_unavailable':
      return badRequest(`This audio codec cannot be decoded on this server: ${err.message}`, 'file')
  }
}

/**
 * The upload's audio, 16 kHz mono, once recognition is known to be installed: the checks whose failure is still an
 * HTTP error (503 recognition_unavailable, 400 on file) because no response has started.
 */
export async function prepareUpload(engines: TranscriptionEngines, file: Buffer): Promise<Float32Array> {
  if (!(await engines.recognizer.available())) {
    throw recognitionUnavailable(new RecognizerUnavailableError().message)
  }
  try {
    return (await decodeAudio(file, { targetRate: RATE, maxDurationSeconds: MAX_AUDIO_SECONDS })).samples
  } catch (err) {
    if (err instanceof AudioDecodeError) throw decodeFailure(err)
    throw err
  }
}

/** Recognition (and diarization when asked for) of prepared audio; warnings of the parts that failed go to `log`. */
export async function transcribeUpload(
  engines: TranscriptionEngines,
  audio: Float32Array,
  options: TranscriptionOptions,
  run: { signal: AbortSignal; log: FastifyBaseLogger; onText?: ((delta: string) => void) | undefined },
): Promise<TranscriptParts> {
  const diarize =
    options.diarization && engines.diarizer
      ? { diarizer: engines.diarizer, count: options.diarization }
      : undefined
  try {
    return await transcribeAudio(audio, {
      recognizer: engines.recognizer,
      signal: run.signal,
      onDiarizationError: (err) => run.log.warn({ err }, 'diarization failed'),
      onVadError: (err) => run.log.warn({ err }, 'speech detection failed'),
      ...(run.onText ? { onText: run.onText } : {}),
      ...(diarize ? { diarize } : {}),
    })
  } catch (err) {
    if (err instanceof RecognizerUnavailableError) throw recognitionUnavailable(err.message)
    throw err
  }
}
