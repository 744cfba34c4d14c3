import { describe, expect, it } from 'vitest'
import { realtimeSessionSchema } from '../../../../schema/index.ts'
import {
  applySessionConfig,
  clampMaxSpeakers,
  defaultSettings,
  parseSessionConfig,
  SessionConfigError,
  sessionObject,
} from './stt-config.ts'

describe('realtime session configuration', () => {
  it('starts with 24 kHz PCM, server VAD and no diarization block', () => {
    const session = sessionObject(defaultSettings(), 'active', 'sess_1')
    expect(session).toEqual({
      type: 'transcription',
      object: 'realtime.transcription_session',
      id: 'sess_1',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { model: 'svc-stt-latest', language: 'en', prompt: '' },
          turn_detection: {
            type: 'server_vad',
            threshold: 0.5,
            prefix_padding_ms: 300,
            silence_duration_ms: 500,
          },
          noise_reduction: null,
        },
      },
      include: [],
    })
    expect(realtimeSessionSchema.parse(session)).toEqual(session)
  })

  it('applies the rate, turn detection (or none) and keeps fields not sent', () => {
    let s = applySessionConfig(defaultSettings(), {
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 16000 },
          turn_detection: { type: 'server_vad', silence_duration_ms: 800 },
        },
      },
    })
    expect(s.rate).toBe(16000)
    expect(s.turnDetection).toEqual({ threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 800 })
    s = applySessionConfig(s, { audio: { input: { turn_detection: null } } })
    expect(s.turnDetection).toBeNull()
    expect(s.rate).toBe(16000)
  })

  it('rejects another rate, another language and unknown fields, naming the field', () => {
    expect(() =>
      parseSessionConfig({ audio: { input: { format: { type: 'audio/pcm', rate: 44100 } } } }),
    ).toThrow(SessionConfigError)
    try {
      parseSessionConfig({ audio: { input: { format: { type: 'audio/pcm', rate: 44100 } } } })
    } catch (err) {
      expect((err as SessionConfigError).param).toBe('session.audio.input.format.rate')
    }
    try {
      parseSessionConfig({ diarization: { enabled: true, speakers: 3 } })
    } catch (err) {
      expect((err as SessionConfigError).param).toBe('session.diarization.speakers')
    }
    expect(() =>
      applySessionConfig(defaultSettings(), { audio: { input: { transcription: { language: 'fr' } } } }),
    ).toThrow(/English/)
  })

  it.each([
    [0, 1],
    [-5, 1],
    [1, 1],
    [20, 20],
    [21, 20],
    [1000, 20],
    [2.4, 2],
  ])('clamps max_speakers %d to %d', (requested, applied) => {
    expect(clampMaxSpeakers(requested)).toBe(applied)
  })

  it('reports diarization with the applied max_speakers, and the request when it was clamped', () => {
    const s = applySessionConfig(defaultSettings(), { diarization: { enabled: true, max_speakers: 50 } })
    expect(sessionObject(s, 'active').diarization).toEqual({
      enabled: true,
      status: 'active',
      max_speakers: 20,
      max_speakers_requested: 50,
    })
    const exact = applySessionConfig(s, { diarization: { max_speakers: 4 } })
    expect(sessionObject(exact, 'unavailable').diarization).toEqual({
      enabled: true,
      status: 'unavailable',
      max_speakers: 4,
    })
    const off = applySessionConfig(exact, { diarization: { enabled: false } })
    expect(sessionObject(off, 'active').diarization).toEqual({ enabled: false, max_speakers: 4 })
    expect(
      sessionObject(applySessionConfig(defaultSettings(), { diarization: { enabled: true } }), 'degraded')
        .diarization,
    ).toEqual({
      enabled: true,
      status: 'degraded',
      max_speakers: 20,
    })
  })
})
