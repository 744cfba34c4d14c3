/** The API contract shared by the speech service, the studio backend and the browser client. */
export * from './audio-format.ts'
export * from './audit.ts'
export * from './bytes.ts' // core/: re-export until server/speech|studio import core directly
export * from './consents.ts'
export * from './errors.ts'
export * from './health.ts'
export * from './markup.ts'
export * from './phrase-buffer.ts' // core/: re-export until server/speech|studio import core directly
export * from './realtime-tts.ts'
export * from './retry-after.ts' // core/: re-export until server/speech|studio import core directly
export * from './scripts.ts'
export * from './session.ts'
export * from './speech.ts'
export * from './takes.ts'
export * from './transcription.ts'
export * from './transcripts.ts'
export * from './voices.ts'
