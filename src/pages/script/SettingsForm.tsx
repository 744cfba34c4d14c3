import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect, useId, useMemo } from 'react'
import { FormProvider, type Resolver, useForm, useWatch } from 'react-hook-form'
import type { z } from 'zod'
import {
  type DecodingField,
  defaultVoiceFor,
  type LineOverride,
  lineOverrideSchema,
  type Mode,
  type VoiceSettings,
  voiceSettingsSchema,
} from '../../../schema/index.ts'
import {
  DecodingFieldset,
  ModelSetting,
  Setting,
  type SettingsFields,
  SPEED_MESSAGE,
  SpeedSetting,
  useLiveReport,
} from './setting-fields.tsx'
import {
  compactOverride,
  DEFAULT_MODE,
  DEFAULT_SPEED,
  describePreset,
  effectiveSettings,
  presetValue,
  voiceFitsModel,
  withoutUnset,
} from './settings.ts'
import { type SavedVoiceOption, VoicePicker } from './VoicePicker.tsx'
import './settings.css'

/** The schema's own messages (describeRange for the decoding fields), and one for speed, which has none. */
const messages: z.core.ParseContext<z.core.$ZodIssue> = {
  error: (issue) => (issue.path?.[0] === 'speed' ? SPEED_MESSAGE : undefined),
}
const VOICE_MISMATCH = 'the voice is not one of this model’s'

/** Reported settings pair the voice with a model that has it: a model switch is reported once the voice follows. */
const scriptSchema = voiceSettingsSchema.refine((s) => voiceFitsModel(s.voice, s.model), {
  path: ['voice'],
  error: VOICE_MISMATCH,
})
// The form holds the line form's values (every field optional) so both share their fields; model and voice are
// always set here, and the schema checks that they are.
const scriptResolver = zodResolver(scriptSchema, messages) as Resolver<SettingsFields, unknown, VoiceSettings>

function parseOrNull<T>(schema: z.ZodType<T, SettingsFields>, values: SettingsFields): T | null {
  const result = schema.safeParse(values)
  return result.success ? result.data : null
}

function voiceName(voice: string, savedVoices: readonly SavedVoiceOption[]): string {
  return savedVoices.find((v) => v.id === voice)?.name ?? voice
}

export interface SettingsFormProps {
  value: VoiceSettings
  /** Fires with each valid state; invalid input shows its error and is not reported. */
  onChange(settings: VoiceSettings): void
  /** The organization's saved voices (catalog type 'saved'). */
  savedVoices: readonly SavedVoiceOption[]
  /** Play a short sample in that voice. */
  onSample(voiceId: string): void
  /** Unique ids when two forms are on the page. */
  idPrefix?: string
}

const CUSTOM = 'Custom'

function presetText(mode: Mode | undefined, field: DecodingField): string {
  const value = presetValue(mode, field)
  return value === undefined
    ? 'Not sent: each sentence keeps the service’s own cap'
    : `From the ${mode ?? DEFAULT_MODE} preset: ${value}`
}

function sameAsScriptText(
  script: VoiceSettings,
  mode: Mode | undefined,
  field: DecodingField,
  base = 'script',
): string {
  const own = script[field]
  if (own !== undefined) return `Same as ${base}: ${own}`
  const value = presetValue(mode, field)
  return value === undefined
    ? `Same as ${base}: not sent`
    : `Same as ${base}, from the ${mode ?? DEFAULT_MODE} preset: ${value}`
}

/**
 * The script's voice settings. A field left "from preset" (or default) is left out of the settings, which is not the
 * same as sending the preset's value: the service applies its own preset for the mode then in force (contract 2.8).
 */
export function SettingsForm({ value, onChange, savedVoices, onSample, idPrefix }: SettingsFormProps) {
  const generatedId = useId()
  const ids = idPrefix ?? generatedId
  const form = useForm<SettingsFields, unknown, VoiceSettings>({
    resolver: scriptResolver,
    mode: 'onChange',
    defaultValues: value,
  })
  useLiveReport(
    form,
    (values) => {
      const parsed = parseOrNull(scriptSchema, values)
      return parsed === null ? null : withoutUnset(parsed)
    },
    value,
    onChange,
  )
  const { control, getValues, setValue } = form
  const values = useWatch({ control })
  const model = values.model ?? value.model

  useEffect(() => {
    const voice = getValues('voice')
    if (voice === undefined || !voiceFitsModel(voice, model))
      setValue('voice', defaultVoiceFor(model), { shouldValidate: true })
  }, [model, getValues, setValue])

  return (
    <FormProvider {...form}>
      <div className="settings-form">
        <ModelSetting idPrefix={ids} initial={model} />
        <VoicePicker
          idPrefix={`${ids}-voices`}
          model={model}
          value={values.voice ?? defaultVoiceFor(model)}
          onChange={(voice) => setValue('voice', voice, { shouldValidate: true, shouldDirty: true })}
          savedVoices={savedVoices}
          onSample={onSample}
        />
        <SpeedSetting
          idPrefix={ids}
          fallback={{ toggle: CUSTOM, text: `Default: ${DEFAULT_SPEED} (not sent)` }}
          initial={DEFAULT_SPEED}
        />
        <DecodingFieldset
          idPrefix={ids}
          model={model}
          current={values}
          modeFallback={{
            toggle: CUSTOM,
            text: `Default: ${DEFAULT_MODE}, ${describePreset(DEFAULT_MODE)} (not sent)`,
          }}
          fallback={(field) => ({ toggle: CUSTOM, text: presetText(values.mode, field) })}
        />
      </div>
    </FormProvider>
  )
}

export interface LineOverrideFormProps {
  /** The script's settings, which every field not set for the line keeps. */
  script: VoiceSettings
  value: LineOverride | undefined
  /** Fires with each valid state; undefined once no field is set for the line. */
  onChange(override: LineOverride | undefined): void
  savedVoices: readonly SavedVoiceOption[]
  onSample(voiceId: string): void
  idPrefix?: string
  /** Whose settings these are: "this line" (the default) or a cast member's name. */
  subject?: string
  /** Whose settings an unset field keeps: "script" (the default), or the cast member who speaks the line. */
  base?: string
}

/** One line's own settings: each field is "Same as script" or set for this line. */
export function LineOverrideForm({
  script,
  value,
  onChange,
  savedVoices,
  onSample,
  idPrefix,
  subject = 'this line',
  base = 'script',
}: LineOverrideFormProps) {
  const FOR_LINE = `Set for ${subject}`
  const generatedId = useId()
  const ids = idPrefix ?? generatedId
  const schema = useMemo(
    () =>
      lineOverrideSchema.refine(
        (o) => o.voice === undefined || voiceFitsModel(o.voice, o.model ?? script.model),
        {
          path: ['voice'],
          error: VOICE_MISMATCH,
        },
      ),
    [script.model],
  )
  const form = useForm<SettingsFields, unknown, LineOverride>({
    resolver: zodResolver(schema, messages),
    mode: 'onChange',
    defaultValues: value ?? {},
  })
  useLiveReport(
    form,
    (values) => {
      const parsed = parseOrNull(schema, values)
      return parsed === null ? null : compactOverride(parsed)
    },
    value,
    onChange,
  )
  const { control, getValues, setValue, reset } = form
  const values = useWatch({ control })
  // Model, voice and mode as the line gets them; decoding entries may be mid-edit and only matter to their field.
  const line = effectiveSettings(
    script,
    withoutUnset({ model: values.model, voice: values.voice, mode: values.mode }),
  )

  useEffect(() => {
    // A line voice the line's model lacks goes back to the script's (or the model's default).
    const voice = getValues('voice')
    if (voice !== undefined && !voiceFitsModel(voice, line.model))
      setValue('voice', undefined, { shouldValidate: true })
  }, [line.model, getValues, setValue])

  const inheritedVoice = effectiveSettings(script, { model: line.model }).voice
  const voiceText =
    inheritedVoice === script.voice
      ? `Same as ${base}: ${voiceName(script.voice, savedVoices)}`
      : `Same as ${base} would be ${voiceName(script.voice, savedVoices)}, which ${line.model} does not have: ${subject} uses ${inheritedVoice}`

  return (
    <FormProvider {...form}>
      <div className="settings-form line-override">
        <ModelSetting
          idPrefix={ids}
          fallback={{ toggle: FOR_LINE, text: `Same as ${base}: ${script.model}` }}
          initial={script.model}
        />
        <Setting
          idPrefix={ids}
          name="voice"
          label="Voice"
          fallback={{ toggle: FOR_LINE, text: voiceText }}
          initial={line.voice}
        >
          {() => (
            <VoicePicker
              idPrefix={`${ids}-voices`}
              legend={`Voice for ${subject}`}
              model={line.model}
              value={line.voice}
              onChange={(voice) => setValue('voice', voice, { shouldValidate: true, shouldDirty: true })}
              savedVoices={savedVoices}
              onSample={onSample}
            />
          )}
        </Setting>
        <SpeedSetting
          idPrefix={ids}
          fallback={{
            toggle: FOR_LINE,
            text: `Same as ${base}: ${script.speed ?? `${DEFAULT_SPEED} (default)`}`,
          }}
          initial={script.speed ?? DEFAULT_SPEED}
        />
        <DecodingFieldset
          idPrefix={ids}
          model={line.model}
          current={{ ...script, mode: line.mode }}
          modeFallback={{
            toggle: FOR_LINE,
            text: `Same as ${base}: ${script.mode ?? `${DEFAULT_MODE} (default)`}`,
          }}
          fallback={(field) => ({ toggle: FOR_LINE, text: sameAsScriptText(script, line.mode, field, base) })}
        />
        <div className="buttons">
          <button type="button" onClick={() => reset({})}>
            {base === 'script'
              ? 'Use the script’s settings for every field'
              : `Use ${base}’s settings for every field`}
          </button>
        </div>
      </div>
    </FormProvider>
  )
}
