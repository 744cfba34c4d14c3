import type { FastifyPluginAsync } from 'fastify'
import type { KeyStore } from '../access/key-store.ts'
import { voiceCatalogRoutes } from './catalog-routes.ts'
import { consentRoutes } from './consent-routes.ts'
import { savedVoiceRoutes } from './voice-routes.ts'
import type { VoiceService } from './voice-service.ts'

export interface VoicesPluginOptions {
  keys: KeyStore
  voices: VoiceService
}

/**
 * Voices (contract 2.3, 2.5, 4.3–4.9): the catalog (`/v1/voices`), saved voices (`/v1/audio/voices`) and consents
 * (`/v1/audio/voice_consents`).
 */
export const voicesPlugin: FastifyPluginAsync<VoicesPluginOptions> = async (app, { keys, voices }) => {
  voiceCatalogRoutes(app, { keys, store: voices.store })
  savedVoiceRoutes(app, { keys, voices })
  consentRoutes(app, { keys, voices })
}
