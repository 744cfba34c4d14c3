import {
  SPEAKER_COUNT_MAX,
  SPEAKER_COUNT_MIN,
  TRANSCRIPTION_MODELS,
  TRANSCRIPTION_RESPONSE_FORMATS,
  type TranscriptionResponseFormat,
} from '../../../schema/index.ts'
import type { SpeakerCount } from '../../engine/diarization/diarizer.ts'
import { ApiError, badRequest, invalidField } from '../errors.ts'

/** The upload's form fields, resolved and checked (contract 4.12, 7; docs/transcription.md). */
export interface TranscriptionOptions {
  model: string
  responseFormat: TranscriptionResponseFormat
  stream: boolean
  /** Null when diarization was not asked for. */
  diarization: SpeakerCount | null
}

const TEXT_FIELDS = [
  'model',
  'response_format',
  'stream',
  'language',
  'prompt',
  'temperature',
  'timestamp_granularities[]',
  'timestamp_granularities',
  'diarization',
  'num_speakers',
  'min_speakers',
  'max_speakers',
] as const
/** Fields that may be sent more than once (the array convention). */
const REPEATABLE = new Set(['timestamp_granularities[]', 'timestamp_granularities'])
const COUNT_FIELDS = ['num_speakers', 'min_speakers', 'max_speakers'] as const

export const invalidDiarizationOptions = (message: string, param: string) =>
  new ApiError(400, 'envelope', message, 'invalid_diarization_options', param)

export const diarizationNotEnabled = () =>
  new ApiError(
    501,
    'envelope',
    'Speaker attribution (diarization) is switched off in this deployment; send the upload without diarization=true.',
    'diarization_not_enabled',
    'diarization',
  )

export function isTextField(name: string): boolean {
  return (TEXT_FIELDS as readonly string[]).includes(name)
}

function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined
  const v = value.trim().toLowerCase()
  if (v === 'true') return true
  if (v === 'false') return false
  throw badRequest(`${name} must be true or false.`, name)
}

function parseCount(name: string, value: string): number {
  const v = value.trim()
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN
  if (!Number.isInteger(n) || n < SPEAKER_COUNT_MIN || n > SPEAKER_COUNT_MAX) {
    throw invalidDiarizationOptions(
      `${name} must be a whole number from ${SPEAKER_COUNT_MIN} to ${SPEAKER_COUNT_MAX}; got ${JSON.stringify(value)}.`,
      name,
    )
  }
  return n
}

/**
 * Checks the text fields of an upload, in this order: unknown or repeated fields, model, response_format, stream,
 * language, temperature, timestamp granularities, then the diarization rules (counts without diarization=true, counts
 * out of 1–20, num with min/max, min above max, a text format with diarization), and last whether diarization is
 * switched on in this deployment (501).
 */
export function resolveTranscriptionOptions(
  fields: ReadonlyArray<readonly [string, string]>,
  opts: { diarizationEnabled: boolean },
): TranscriptionOptions {
  const values = new Map<string, string>()
  for (const [name, value] of fields) {
    if (!isTextField(name)) throw badRequest(`Unknown field ${JSON.stringify(name)}.`, name)
    if (values.has(name) && !REPEATABLE.has(name)) throw badRequest(`The field ${name} was sent twice.`, name)
    if (REPEATABLE.has(name)) {
      if (value !== 'word' && value !== 'segment') {
        throw badRequest('timestamp_granularities[] must be word or segment.', name)
      }
    }
    values.set(name, value)
  }

  const model = values.get('model')
  if (model !== undefined && !(TRANSCRIPTION_MODELS as readonly string[]).includes(model)) {
    throw invalidField(
      'model',
      `Unknown model ${JSON.stringify(model)}; use ${TRANSCRIPTION_MODELS.join(', ')}.`,
    )
  }
  const format = values.get('response_format') ?? 'json'
  if (!(TRANSCRIPTION_RESPONSE_FORMATS as readonly string[]).includes(format)) {
    throw badRequest(
      `response_format must be one of ${TRANSCRIPTION_RESPONSE_FORMATS.join(', ')}.`,
      'response_format',
    )
  }
  const responseFormat = format as TranscriptionResponseFormat
  const stream = parseBoolean('stream', values.get('stream')) ?? false
  const language = values.get('language')
  if (language !== undefined && !/^en([-_][A-Za-z]{2})?$/.test(language.trim())) {
    throw badRequest('Only English is recognized; language must be en (or en-XX) or omitted.', 'language')
  }
  const temperature = values.get('temperature')
  if (temperature !== undefined) {
    const t = Number(temperature)
    if (temperature.trim() === '' || !Number.isFinite(t) || t < 0 || t > 1) {
      throw badRequest('temperature must be a number from 0 to 1.', 'temperature')
    }
  }

  const diarize = parseBoolean('diarization', values.get('diarization')) ?? false
  const sent = COUNT_FIELDS.filter((f) => values.has(f))
  if (sent.length > 0 && !diarize) {
    throw invalidDiarizationOptions(
      `${sent.join(', ')} can only be sent with diarization=true.`,
      sent[0] as string,
    )
  }
  let diarization: SpeakerCount | null = null
  if (diarize) {
    const count = (f: (typeof COUNT_FIELDS)[number]) => {
      const v = values.get(f)
      return v === undefined ? undefined : parseCount(f, v)
    }
    const numSpeakers = count('num_speakers')
    const minSpeakers = count('min_speakers')
    const maxSpeakers = count('max_speakers')
    if (numSpeakers !== undefined && (minSpeakers !== undefined || maxSpeakers !== undefined)) {
      throw invalidDiarizationOptions(
        'num_speakers is an exact count and cannot be combined with min_speakers or max_speakers.',
        'num_speakers',
      )
    }
    if (minSpeakers !== undefined && maxSpeakers !== undefined && minSpeakers > maxSpeakers) {
      throw invalidDiarizationOptions(
        `min_speakers (${minSpeakers}) must not be greater than max_speakers (${maxSpeakers}).`,
        'min_speakers',
      )
    }
    if (responseFormat !== 'json' && responseFormat !== 'verbose_json') {
      throw new ApiError(
        400,
        'envelope',
        'With diarization=true, response_format must be json or verbose_json.',
        'invalid_response_format',
        'response_format',
      )
    }
    diarization = {}
    if (numSpeakers !== undefined) diarization.numSpeakers = numSpeakers
    if (minSpeakers !== undefined) diarization.minSpeakers = minSpeakers
    if (maxSpeakers !== undefined) diarization.maxSpeakers = maxSpeakers
  }
  if (stream && responseFormat !== 'json' && responseFormat !== 'verbose_json') {
    throw badRequest('stream=true works with response_format json or verbose_json.', 'stream')
  }
  if (diarization && !opts.diarizationEnabled) throw diarizationNotEnabled()
  return { model: model ?? (TRANSCRIPTION_MODELS[0] as string), responseFormat, stream, diarization }
}
