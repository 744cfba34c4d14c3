import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { resolveTranscriptionOptions } from './options.ts'

/** Upload form validation (contract 4.12, 7): each rule at its boundary. */

const resolve = (fields: Record<string, string>, diarizationEnabled = true) =>
  resolveTranscriptionOptions(Object.entries(fields), { diarizationEnabled })

function failure(fields: Record<string, string>, diarizationEnabled = true) {
  try {
    resolve(fields, diarizationEnabled)
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    return { status: err.status, shape: err.shape, code: err.code, param: err.param, message: err.message }
  }
  throw new Error('accepted')
}

describe('defaults and plain fields', () => {
  it('defaults to json, no stream, no diarization', () => {
    expect(resolve({})).toEqual({
      model: 'svc-stt-latest',
      responseFormat: 'json',
      stream: false,
      diarization: null,
    })
  })

  it('accepts every response format and the compatibility fields', () => {
    for (const f of ['json', 'verbose_json', 'text', 'srt', 'vtt']) {
      expect(resolve({ response_format: f }).responseFormat).toBe(f)
    }
    expect(
      resolveTranscriptionOptions(
        [
          ['language', 'en'],
          ['prompt', 'anything'],
          ['temperature', '0'],
          ['timestamp_granularities[]', 'word'],
          ['timestamp_granularities[]', 'segment'],
        ],
        { diarizationEnabled: true },
      ).responseFormat,
    ).toBe('json')
  })

  it.each([
    [{ response_format: 'xml' }, 'response_format'],
    [{ stream: 'yes' }, 'stream'],
    [{ diarization: '1' }, 'diarization'],
    [{ language: 'de' }, 'language'],
    [{ temperature: '1.5' }, 'temperature'],
    [{ unknown_field: 'x' }, 'unknown_field'],
    [{ 'timestamp_granularities[]': 'char' }, 'timestamp_granularities[]'],
    [{ stream: 'true', response_format: 'srt' }, 'stream'],
  ])('rejects %j with a 400 detail naming the field', (fields, param) => {
    expect(failure(fields)).toMatchObject({ status: 400, shape: 'detail', param })
  })

  it('rejects a repeated field', () => {
    expect(() =>
      resolveTranscriptionOptions(
        [
          ['model', 'svc-stt-latest'],
          ['model', 'svc-stt-latest'],
        ],
        { diarizationEnabled: true },
      ),
    ).toThrow(/twice/)
  })

  it('rejects an unknown model with the envelope', () => {
    expect(failure({ model: 'whisper-2' })).toMatchObject({
      status: 400,
      shape: 'envelope',
      code: 'invalid_request_error',
      param: 'model',
    })
  })
})

describe('diarization options (4.12)', () => {
  it('accepts counts at both ends of 1–20 and passes them on', () => {
    expect(resolve({ diarization: 'true', num_speakers: '1' }).diarization).toEqual({ numSpeakers: 1 })
    expect(resolve({ diarization: 'true', num_speakers: '20' }).diarization).toEqual({ numSpeakers: 20 })
    expect(resolve({ diarization: 'true', min_speakers: '1', max_speakers: '20' }).diarization).toEqual({
      minSpeakers: 1,
      maxSpeakers: 20,
    })
    expect(resolve({ diarization: 'true', min_speakers: '3', max_speakers: '3' }).diarization).toEqual({
      minSpeakers: 3,
      maxSpeakers: 3,
    })
    expect(resolve({ diarization: 'true', response_format: 'verbose_json' }).diarization).toEqual({})
    expect(resolve({ diarization: 'false' }).diarization).toBeNull()
  })

  it.each([
    ['num_speakers', '0'],
    ['num_speakers', '21'],
    ['min_speakers', '0'],
    ['max_speakers', '21'],
    ['num_speakers', '2.5'],
    ['num_speakers', '-1'],
    ['max_speakers', 'two'],
    ['min_speakers', ''],
  ])('rejects %s=%j as out of range with 400 invalid_diarization_options', (field, value) => {
    expect(failure({ diarization: 'true', [field]: value })).toMatchObject({
      status: 400,
      shape: 'envelope',
      code: 'invalid_diarization_options',
      param: field,
    })
  })

  it.each([
    [{ num_speakers: '2' }],
    [{ min_speakers: '2' }],
    [{ max_speakers: '2' }],
    [{ diarization: 'false', num_speakers: '2' }],
  ])('rejects counts without diarization=true: %j', (fields) => {
    expect(failure(fields)).toMatchObject({ status: 400, code: 'invalid_diarization_options' })
  })

  it('rejects num_speakers combined with min or max, and min above max', () => {
    expect(failure({ diarization: 'true', num_speakers: '2', min_speakers: '1' })).toMatchObject({
      code: 'invalid_diarization_options',
      param: 'num_speakers',
    })
    expect(failure({ diarization: 'true', num_speakers: '2', max_speakers: '3' })).toMatchObject({
      code: 'invalid_diarization_options',
    })
    expect(failure({ diarization: 'true', min_speakers: '4', max_speakers: '3' })).toMatchObject({
      code: 'invalid_diarization_options',
      param: 'min_speakers',
    })
  })

  it.each(['text', 'srt', 'vtt'])(
    'rejects diarization with response_format=%s (invalid_response_format)',
    (f) => {
      expect(failure({ diarization: 'true', response_format: f })).toMatchObject({
        status: 400,
        shape: 'envelope',
        code: 'invalid_response_format',
        param: 'response_format',
      })
    },
  )

  it('answers 501 diarization_not_enabled when the deployment switched it off, only for valid requests', () => {
    expect(failure({ diarization: 'true' }, false)).toMatchObject({
      status: 501,
      shape: 'envelope',
      code: 'diarization_not_enabled',
    })
    expect(failure({ diarization: 'true', num_speakers: '30' }, false)).toMatchObject({ status: 400 })
    expect(resolve({ response_format: 'srt' }, false).diarization).toBeNull()
  })
})
