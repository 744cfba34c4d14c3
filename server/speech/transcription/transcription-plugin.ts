import type { FastifyPluginAsync } from 'fastify'
import { type AlignmentRouteDeps, alignmentRoutes } from './alignment-routes.ts'
import { type CallRouteDeps, callRoutes } from './realtime/call-routes.ts'
import { type SttRealtimeDeps, sttRealtimeRoutes } from './realtime/stt-realtime-routes.ts'
import { type TranscriptionRouteDeps, transcriptionRoutes } from './transcription-routes.ts'

export type TranscriptionPluginOptions = TranscriptionRouteDeps &
  SttRealtimeDeps &
  CallRouteDeps &
  AlignmentRouteDeps

/**
 * Transcription (contract 4.11–4.12): uploads (`POST /v1/audio/transcriptions`), the realtime socket (`/v1/realtime`)
 * and WebRTC signalling (`/v1/realtime/calls`); and forced alignment (`POST /v1/audio/alignments`, an extension).
 */
export const transcriptionPlugin: FastifyPluginAsync<TranscriptionPluginOptions> = async (app, opts) => {
  transcriptionRoutes(app, opts)
  alignmentRoutes(app, opts)
  sttRealtimeRoutes(app, opts)
  callRoutes(app, opts)
}
