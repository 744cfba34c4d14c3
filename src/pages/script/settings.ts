import {
  builtinVoicesFor,
  type CastMember,
  DECODING_FIELDS,
  type DecodingField,
  defaultVoiceFor,
  isSecondGen,
  type LineOverride,
  MODE_PRESETS,
  type Mode,
  type ModelId,
  type SpeechRequest,
  savedVoiceIdPattern,
  spokenLine,
  type VoiceSettings,
} from '../../../schema/index.ts'

/** Voice settings of the script page: a line's effective settings, the request they make, their summary. */

/** The mode the service uses when none is sent (contract 2.8). */
export const DEFAULT_MODE: Mode = 'expressive'
/** The speed the service uses when none is sent (contract 2.1). */
export const DEFAULT_SPEED = 1

export function isSavedVoice(voice: string): boolean {
  return savedVoiceIdPattern.test(voice)
}

/** Whether `model` accepts `voice`: one of its built-in voices, or a saved voice on the second generation. */
export function voiceFitsModel(voice: string, model: ModelId): boolean {
  if (isSavedVoice(voice)) return isSecondGen(model)
  return builtinVoicesFor(model).some((v) => v.id === voice)
}

/** The first candidate `model` accepts, else its default voice: each model rejects the other generation's ids. */
export function voiceFor(model: ModelId, ...candidates: (string | undefined)[]): string {
  return candidates.find((v) => v !== undefined && voiceFitsModel(v, model)) ?? defaultVoiceFor(model)
}

/** The settings without their unset fields, as `{...a, ...b}` needs them so an unset field replaces nothing. */
export function withoutUnset<T extends LineOverride>(settings: T): T {
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as T
}

/**
 * A line's settings: each field its override gives replaces the script's. The voice is the override's, else the
 * script's, else the model's default, whichever the line's model accepts first, so an override of the model alone
 * keeps the script's voice when that model has it.
 */
export function effectiveSettings(script: VoiceSettings, override?: LineOverride): VoiceSettings {
  const merged: VoiceSettings = { ...script, ...withoutUnset(override ?? {}) }
  return { ...merged, voice: voiceFor(merged.model, override?.voice, script.voice) }
}

export interface ResolvedLine {
  /** The cast member who speaks the line, or null when the script's voice does. */
  speaker: string | null
  settings: VoiceSettings
  /** What is sent: the text without its speaker prefix when a cast member speaks it. */
  input: string
}

/**
 * What one line sends, the one place a line's settings are resolved (previews, Play script, takes and, through the
 * takes, the final render). A line that starts with a cast member's name is theirs (schema/speaker.ts). Precedence,
 * field by field: the line's own override, then its cast member's settings, then the script's; the voice is the first
 * of those the resulting model accepts, else its default. `text` is what to play of the line (a selection), which
 * loses the speaker prefix when it starts with one; the speaker is the whole line's.
 */
export function resolveLine(
  script: { settings: VoiceSettings; cast?: readonly CastMember[] },
  line: { text: string; override?: LineOverride },
  text: string = line.text,
): ResolvedLine {
  const cast = script.cast ?? []
  const { member } = spokenLine(line.text, cast)
  const speaking = member ? effectiveSettings(script.settings, member.settings) : script.settings
  return {
    speaker: member?.name ?? null,
    settings: effectiveSettings(speaking, line.override),
    input: spokenLine(text, cast).input,
  }
}

/** The override without its unset fields, or undefined when it sets nothing. */
export function compactOverride(override: LineOverride | undefined): LineOverride | undefined {
  const set = withoutUnset(override ?? {})
  return Object.keys(set).length > 0 ? set : undefined
}

/** Equal field by field, an absent field and one set to undefined alike. */
export function sameSettings(a: LineOverride | undefined, b: LineOverride | undefined): boolean {
  const x: Record<string, unknown> = a ?? {}
  const y: Record<string, unknown> = b ?? {}
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].every((k) => Object.is(x[k], y[k]))
}

/**
 * The request for `input` in these settings. Fields left unset stay out, so the service applies its own preset and
 * defaults (contract 2.8 rule 1); mode and decoding go only to the second generation, which alone reads them (2.1 rule 4).
 */
export function toSpeechRequest(settings: VoiceSettings, input: string): SpeechRequest {
  const request: SpeechRequest = {
    model: settings.model,
    input,
    voice: isSavedVoice(settings.voice) ? { id: settings.voice } : settings.voice,
  }
  if (settings.speed !== undefined) request.speed = settings.speed
  if (isSecondGen(settings.model)) {
    if (settings.mode !== undefined) request.mode = settings.mode
    for (const field of DECODING_FIELDS) {
      const value = settings[field]
      if (value !== undefined) request[field] = value
    }
  }
  return request
}

/** The value a mode's preset gives a decoding field (no mode: expressive); undefined for max_new_tokens, unset. */
export function presetValue(mode: Mode | undefined, field: DecodingField): number | undefined {
  const preset: Partial<Record<DecodingField, number>> = MODE_PRESETS[mode ?? DEFAULT_MODE]
  return preset[field]
}

/** A mode's preset as the form shows it: "temperature 0.9 · top_p 0.9 · top_k 50 · min_p 0". */
export function describePreset(mode: Mode): string {
  return Object.entries(MODE_PRESETS[mode])
    .map(([field, value]) => `${field} ${value}`)
    .join(' · ')
}

const SHORT_NAMES: Partial<Record<DecodingField, string>> = { temperature: 'temp' }

/**
 * A one-line summary for take lists: "svc-tts-2-latest · eleanor_somber_female_32 · expressive · temp 1.1 (custom)".
 * Only fields the user set are listed as custom; a saved voice shows its name when `savedVoices` holds it.
 */
export function describeSettings(
  settings: VoiceSettings,
  savedVoices: readonly { id: string; name: string }[] = [],
): string {
  const saved = savedVoices.find((v) => v.id === settings.voice)
  const parts: string[] = [settings.model, saved ? `${saved.name} (saved)` : settings.voice]
  if (settings.speed !== undefined) parts.push(`speed ${settings.speed}×`)
  if (isSecondGen(settings.model)) {
    parts.push(settings.mode ?? DEFAULT_MODE)
    const custom = DECODING_FIELDS.flatMap((field) => {
      const value = settings[field]
      return value === undefined ? [] : [`${SHORT_NAMES[field] ?? field} ${value}`]
    })
    if (custom.length > 0) parts.push(`${custom.join(', ')} (custom)`)
  }
  return parts.join(' · ')
}
