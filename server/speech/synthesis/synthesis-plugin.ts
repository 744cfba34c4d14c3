import type { FastifyPluginAsync } from 'fastify'
import { type SpeechRouteDeps, speechRoutes } from './speech-routes.ts'
import { type TtsRealtimeDeps, ttsRealtimeRoutes } from './tts-realtime-routes.ts'

export type SynthesisPluginOptions = SpeechRouteDeps & TtsRealtimeDeps

/** Synthesis (contract 2, 4.1, 4.2): `POST /v1/audio/speech` and the text-input socket `/v1/tts/realtime`. */
export const synthesisPlugin: FastifyPluginAsync<SynthesisPluginOptions> = async (app, opts) => {
  speechRoutes(app, opts)
  ttsRealtimeRoutes(app, opts)
}
