import { formatBytes } from '../../../core/bytes.ts'
import {
  MAX_TRANSCRIPTION_FILE_BYTES,
  SPEAKER_COUNT_MAX,
  SPEAKER_COUNT_MIN,
  TRANSCRIPTION_EXTENSIONS,
} from '../../../schema/index.ts'

/**
 * What the upload form checks before sending (the service checks again): the file's size and format, and the
 * diarization options as contract 4.12 validates them. Pure.
 */

export const ACCEPT = TRANSCRIPTION_EXTENSIONS.map((e) => `.${e}`).join(',')

/** Why a file cannot be sent, or null when it can. */
export function fileProblem(file: { name: string; size: number; type: string }): string | null {
  const ext = file.name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1]
  const knownExt = ext !== undefined && (TRANSCRIPTION_EXTENSIONS as readonly string[]).includes(ext)
  const audioType = /^(audio|video)\//.test(file.type)
  if (!knownExt && !(audioType && ext === undefined)) {
    return `${file.name} is not a recording the service reads. Use WAV, MP3, Ogg (Vorbis or Opus), AAC, FLAC, WebM or MP4.`
  }
  if (file.size === 0) return `${file.name} is empty.`
  if (file.size > MAX_TRANSCRIPTION_FILE_BYTES) {
    return `${file.name} is ${formatBytes(file.size)}; the service takes recordings up to ${formatBytes(MAX_TRANSCRIPTION_FILE_BYTES)}. Shorten or compress it first.`
  }
  return null
}

export type SpeakerCountMode = 'auto' | 'exact' | 'range'

export interface DiarizationChoice {
  enabled: boolean
  mode: SpeakerCountMode
  /** As typed, so a half-typed value can be reported rather than silently dropped. */
  exact: string
  min: string
  max: string
}

export const DEFAULT_CHOICE: DiarizationChoice = { enabled: true, mode: 'auto', exact: '2', min: '', max: '' }

export type ChoiceField = 'exact' | 'min' | 'max'
export type ChoiceErrors = Partial<Record<ChoiceField, string>>

const RANGE_TEXT = `a whole number from ${SPEAKER_COUNT_MIN} to ${SPEAKER_COUNT_MAX}`

function count(raw: string, label: string, required: boolean): { value?: number; error?: string } {
  const text = raw.trim()
  if (text === '') return required ? { error: `Enter ${label}: ${RANGE_TEXT}.` } : {}
  if (!/^\d+$/.test(text))
    return { error: `${label[0]?.toUpperCase()}${label.slice(1)} must be ${RANGE_TEXT}.` }
  const value = Number(text)
  if (value < SPEAKER_COUNT_MIN || value > SPEAKER_COUNT_MAX)
    return { error: `${label[0]?.toUpperCase()}${label.slice(1)} must be ${RANGE_TEXT}.` }
  return { value }
}

/**
 * The form fields for the choice, or the errors by field. Counts are sent only with diarization on (the service
 * rejects them otherwise); an exact count excludes the bounds; a range needs at least one bound, and min ≤ max.
 */
export function diarizationFields(
  choice: DiarizationChoice,
): { fields: Record<string, string>; errors?: undefined } | { errors: ChoiceErrors; fields?: undefined } {
  if (!choice.enabled) return { fields: {} }
  const fields: Record<string, string> = { diarization: 'true' }
  if (choice.mode === 'exact') {
    const n = count(choice.exact, 'the number of speakers', true)
    if (n.error) return { errors: { exact: n.error } }
    fields.num_speakers = String(n.value)
  } else if (choice.mode === 'range') {
    const min = count(choice.min, 'the minimum', false)
    const max = count(choice.max, 'the maximum', false)
    const errors: ChoiceErrors = {}
    if (min.error) errors.min = min.error
    if (max.error) errors.max = max.error
    if (!min.error && !max.error) {
      if (min.value === undefined && max.value === undefined)
        errors.min = 'Enter a minimum, a maximum or both, or choose “Any number”.'
      else if (min.value !== undefined && max.value !== undefined && min.value > max.value)
        errors.max = `The maximum (${max.value}) is below the minimum (${min.value}).`
    }
    if (Object.keys(errors).length > 0) return { errors }
    if (min.value !== undefined) fields.min_speakers = String(min.value)
    if (max.value !== undefined) fields.max_speakers = String(max.value)
  }
  return { fields }
}
