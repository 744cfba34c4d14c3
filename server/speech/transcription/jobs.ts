import type { FastifyBaseLogger } from 'fastify'
import type { TranscriptionOptions } from './options.ts'
import type { TranscriptParts } from './transcript-formats.ts'
import { prepareUpload, type TranscriptionEngines, transcribeUpload } from './upload-work.ts'

/**
 * Where the work of a transcription upload runs. The route admits the upload (key, form, options, the ASR slot) and
 * hands it over here; it sees one interface whether the work runs in its own process (`LocalTranscriptionJobs`, the
 * default) or on whichever instance takes it from a queue shared by every instance (`SharedTranscriptionJobs`,
 * shared-jobs.ts, with `REDIS_URL` and `DATABASE_URL`; docs/deploy.md, Transcription jobs).
 */
export interface TranscriptionUpload {
  /** The organization (or legacy key) that holds the ASR slot: for logs and the job's record. */
  ownerId: string
  /** The uploaded file as sent (at most 25 MiB). */
  file: Buffer
  options: TranscriptionOptions
}

export interface TranscriptionJob {
  /**
   * The transcript, with each piece of text given to `onText` as soon as it is recognized (stream=true). Rejects with
   * an ApiError (503 recognition_unavailable, or the lost-worker 503) or the recognizer's own error (a 500).
   */
  result(onText?: (delta: string) => void): Promise<TranscriptParts>
}

export interface TranscriptionJobs {
  /**
   * Starts the work and resolves once the audio is decoded and recognition can begin, so that everything answered
   * before the response starts — an unsupported or damaged file (400), recognition not installed (503) — is an HTTP
   * error exactly as before. The signal (the client leaving) stops the work wherever it runs.
   */
  start(upload: TranscriptionUpload, signal: AbortSignal, log: FastifyBaseLogger): Promise<TranscriptionJob>
  close(): Promise<void>
}

/** The work in the process that took the upload: nothing stored, nothing queued (the embedded default). */
export class LocalTranscriptionJobs implements TranscriptionJobs {
  constructor(private readonly engines: TranscriptionEngines) {}

  async start(upload: TranscriptionUpload, signal: AbortSignal, log: FastifyBaseLogger) {
    const audio = await prepareUpload(this.engines, upload.file)
    signal.throwIfAborted()
    return {
      result: (onText?: (delta: string) => void) =>
        transcribeUpload(this.engines, audio, upload.options, { signal, log, onText }),
    }
  }

  async close() {}
}
