/** The API contract shared by the speech service, the studio backend and the browser client. */
export * from './consents.ts'
export * from './errors.ts'
export * from './markup.ts'
export * from './realtime-tts.ts'
export * from './speech.ts'
export * from './transcription.ts'
export * from './transcripts.ts'
export * from './voices.ts'
