import type { FastifyRequest } from 'fastify'
import { SPEAKER_COUNT_MAX, SPEAKER_COUNT_MIN } from '../../../schema/index.ts'
import { callUpstream, type Upstream } from '../proxy/upstream.ts'
import type { BridgeOptions, UpstreamRefusal } from '../proxy/ws-bridge.ts'
import type { TranscriptStore } from '../transcripts/store.ts'
import { liveRecorder } from './recorder.ts'

/**
 * Live transcription through the backend. A browser cannot set `Authorization` on a WebSocket, and the contract's only
 * way to give a browser session its diarization settings is the body that mints an ephemeral client secret. So when
 * a reviewer opens `/api/v1/realtime?diarization=true&max_speakers=N`, the backend mints an `ek_…` with those settings
 * (`POST /v1/realtime/client_secrets`, with its durable key; browsers may not call that route themselves) and opens
 * the service's `/v1/realtime` with it. The durable key never reaches the session, and the secret never reaches the
 * browser.
 */

export interface LiveSettings {
  diarization: { enabled: boolean; max_speakers?: number }
}

/**
 * Reads the browser's query: `diarization` (`true`/`false`, default false) and `max_speakers` (an integer; clamped
 * into 1–20 as the service would clamp it). Anything else is ignored.
 */
export function liveSettings(url: string): LiveSettings {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '')
  const enabled = query.get('diarization') === 'true'
  const raw = query.get('max_speakers')
  const n = raw !== null && /^\d{1,3}$/.test(raw) ? Number(raw) : undefined
  const maxSpeakers =
    n === undefined ? undefined : Math.min(SPEAKER_COUNT_MAX, Math.max(SPEAKER_COUNT_MIN, n))
  return { diarization: maxSpeakers === undefined ? { enabled } : { enabled, max_speakers: maxSpeakers } }
}

/** Mints an ephemeral client secret for one transcription session; a refusal of the service comes back as it came. */
export async function mintClientSecret(
  upstream: Upstream,
  settings: LiveSettings,
): Promise<string | UpstreamRefusal> {
  const res = await callUpstream(upstream, '/v1/realtime/client_secrets', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session: { type: 'transcription', diarization: settings.diarization } }),
    timeoutMs: 10_000,
  })
  const body = await res.text()
  if (!res.ok) {
    return {
      status: res.status,
      body,
      headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' },
    }
  }
  const value = (JSON.parse(body) as { value?: unknown }).value
  if (typeof value !== 'string' || !value.startsWith('ek_'))
    throw new Error('the service minted no ek_ secret')
  return value
}

/**
 * The bridge options for `/v1/realtime`: a fresh secret per session, no browser query upstream, and each session kept
 * as a saved transcript with its audio (recorder.ts).
 */
export function liveBridgeOptions(upstream: Upstream, store: TranscriptStore): BridgeOptions {
  return {
    credential: (request: FastifyRequest) => mintClientSecret(upstream, liveSettings(request.url)),
    upstreamQuery: () => '',
    tap: (request) => liveRecorder(store, request.studioUser?.name ?? 'unknown'),
  }
}
