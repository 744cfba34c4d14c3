import type { z } from 'zod'
import {
  DEFAULT_TURN_DETECTION,
  type RealtimeDiarizationState,
  type RealtimeSession,
  type RealtimeSessionConfig,
  realtimeSessionConfigSchema,
  SPEAKER_COUNT_MAX,
  SPEAKER_COUNT_MIN,
  TRANSCRIPTION_MODEL,
} from '../../../../schema/index.ts'

/** A realtime transcription session's settings, as `session.update` and client secrets change them (contract 4.12, 6.4). */
export interface SttSettings {
  rate: 24_000 | 16_000
  transcription: { model: string; language: string; prompt: string }
  turnDetection: { threshold: number; prefixPaddingMs: number; silenceDurationMs: number } | null
  noiseReduction: { type: string } | null
  include: string[]
  /** Null until the client sends a `diarization` object; the block is reported only after that (6.4). */
  diarization: { enabled: boolean; maxSpeakers: number; maxSpeakersRequested?: number } | null
}

export type DiarizationStatus = 'active' | 'unavailable' | 'degraded'

/** A configuration the service cannot apply; `param` is the path of the offending field. */
export class SessionConfigError extends Error {
  constructor(
    message: string,
    readonly param: string | null,
  ) {
    super(message)
  }
}

export function defaultSettings(): SttSettings {
  return {
    rate: 24_000,
    transcription: { model: TRANSCRIPTION_MODEL, language: 'en', prompt: '' },
    turnDetection: {
      threshold: DEFAULT_TURN_DETECTION.threshold,
      prefixPaddingMs: DEFAULT_TURN_DETECTION.prefix_padding_ms,
      silenceDurationMs: DEFAULT_TURN_DETECTION.silence_duration_ms,
    },
    noiseReduction: null,
    include: [],
    diarization: null,
  }
}

/** max_speakers applied: out-of-range and fractional values are clamped to a whole number in 1–20 (4.12). */
export function clampMaxSpeakers(requested: number): number {
  const n = Math.round(requested)
  return Math.min(SPEAKER_COUNT_MAX, Math.max(SPEAKER_COUNT_MIN, Number.isFinite(n) ? n : SPEAKER_COUNT_MAX))
}

/** Validates a raw configuration object; throws SessionConfigError naming the first bad field. */
export function parseSessionConfig(raw: unknown): RealtimeSessionConfig {
  const parsed = realtimeSessionConfigSchema.safeParse(raw)
  if (!parsed.success) throw configIssue(parsed.error.issues[0] as z.core.$ZodIssue, 'session')
  return parsed.data
}

export function configIssue(issue: z.core.$ZodIssue, prefix: string): SessionConfigError {
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.')
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] as string
    const where = path ? `${path}.${key}` : key
    return new SessionConfigError(`Unknown field ${where}.`, where)
  }
  return new SessionConfigError(`Invalid ${path || 'value'}: ${issue.message}`, path || null)
}

/** The settings after applying `config` on top of `current`; fields not sent keep their value. */
export function applySessionConfig(current: SttSettings, config: RealtimeSessionConfig): SttSettings {
  const next: SttSettings = structuredClone(current)
  const input = config.audio?.input
  if (input?.format?.rate !== undefined) next.rate = input.format.rate
  if (input?.transcription) {
    const { model, language, prompt } = input.transcription
    if (language !== undefined) {
      if (language !== '' && !/^en([-_][A-Za-z]{2})?$/.test(language)) {
        throw new SessionConfigError(
          'Only English is recognized; language must be en (or en-XX) or empty.',
          'session.audio.input.transcription.language',
        )
      }
      next.transcription.language = language === '' ? 'en' : language
    }
    if (model !== undefined) next.transcription.model = model
    if (prompt !== undefined) next.transcription.prompt = prompt
  }
  if (input?.turn_detection === null) next.turnDetection = null
  else if (input?.turn_detection) {
    const td = input.turn_detection
    const base = next.turnDetection ?? defaultSettings().turnDetection
    next.turnDetection = {
      threshold: td.threshold ?? base?.threshold ?? DEFAULT_TURN_DETECTION.threshold,
      prefixPaddingMs:
        td.prefix_padding_ms ?? base?.prefixPaddingMs ?? DEFAULT_TURN_DETECTION.prefix_padding_ms,
      silenceDurationMs:
        td.silence_duration_ms ?? base?.silenceDurationMs ?? DEFAULT_TURN_DETECTION.silence_duration_ms,
    }
  }
  if (input?.noise_reduction !== undefined) next.noiseReduction = input.noise_reduction
  if (config.include) next.include = [...config.include]
  if (config.diarization) {
    const d = config.diarization
    const prev = next.diarization ?? { enabled: false, maxSpeakers: SPEAKER_COUNT_MAX }
    const diarization: NonNullable<SttSettings['diarization']> = {
      enabled: d.enabled ?? prev.enabled,
      maxSpeakers: prev.maxSpeakers,
    }
    if (prev.maxSpeakersRequested !== undefined) diarization.maxSpeakersRequested = prev.maxSpeakersRequested
    if (d.max_speakers !== undefined) {
      diarization.maxSpeakers = clampMaxSpeakers(d.max_speakers)
      if (diarization.maxSpeakers !== d.max_speakers) diarization.maxSpeakersRequested = d.max_speakers
      else delete diarization.maxSpeakersRequested
    }
    next.diarization = diarization
  }
  return next
}

export function diarizationState(
  settings: SttSettings,
  status: DiarizationStatus,
): RealtimeDiarizationState | undefined {
  const d = settings.diarization
  if (!d) return undefined
  return {
    enabled: d.enabled,
    ...(d.enabled ? { status } : {}),
    max_speakers: d.maxSpeakers,
    ...(d.maxSpeakersRequested !== undefined ? { max_speakers_requested: d.maxSpeakersRequested } : {}),
  }
}

/** The session object of `session.created` / `session.updated` and of the client-secret response. */
export function sessionObject(
  settings: SttSettings,
  status: DiarizationStatus,
  id?: string,
): RealtimeSession {
  const diarization = diarizationState(settings, status)
  return {
    type: 'transcription',
    object: 'realtime.transcription_session',
    ...(id ? { id } : {}),
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: settings.rate },
        transcription: { ...settings.transcription },
        turn_detection: settings.turnDetection
          ? {
              type: 'server_vad',
              threshold: settings.turnDetection.threshold,
              prefix_padding_ms: settings.turnDetection.prefixPaddingMs,
              silence_duration_ms: settings.turnDetection.silenceDurationMs,
            }
          : null,
        noise_reduction: settings.noiseReduction,
      },
    },
    include: [...settings.include],
    ...(diarization ? { diarization } : {}),
  }
}
