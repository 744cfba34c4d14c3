import { type ReactNode, useEffect, useRef } from 'react'
import {
  type FieldPath,
  type PathValue,
  type UseFormReturn,
  useFormContext,
  useFormState,
  useWatch,
} from 'react-hook-form'
import type { z } from 'zod'
import {
  DECODING_FIELDS,
  DECODING_RANGES,
  type DecodingField,
  isSecondGen,
  type LineOverride,
  lineOverrideSchema,
  MODELS,
  MODES,
  type Mode,
  type ModelId,
  voiceSettingsSchema,
} from '../../../schema/index.ts'
import { DEFAULT_MODE, describePreset, presetValue, sameSettings } from './settings.ts'

/**
 * The fields both settings forms are made of: the script's settings and a line's override. Both forms hold the
 * same values (every field optional) and reach them through react-hook-form's context.
 */

export type SettingsFields = z.input<typeof lineOverrideSchema>

const speedSchema = voiceSettingsSchema.shape.speed.unwrap()
const SPEED_RANGE = { min: speedSchema.minValue ?? 0.25, max: speedSchema.maxValue ?? 4 }
/** The schema gives speed no message of its own; this one reads like the decoding fields' (describeRange). */
export const SPEED_MESSAGE = `speed must be a number from ${SPEED_RANGE.min} to ${SPEED_RANGE.max}`

/** How a field left unset reads, and the checkbox that sets it instead. */
interface Fallback {
  /** The checkbox's visible label, named with the field for screen readers: "Custom", "Set for this line". */
  toggle: string
  /** What the unset field amounts to: "From the expressive preset: 0.9", "Same as script: 1.1". */
  text: string
}

/** Ids of one field's parts, for the control inside it. */
interface FieldIds {
  control: string
  label: string
  describedBy: string
  invalid: boolean
}

interface SettingProps<N extends FieldPath<SettingsFields>> {
  idPrefix: string
  name: N
  label: string
  /** Absent when the field is always set (the script's model). */
  fallback?: Fallback
  /** The value a field starts from once it is set. */
  initial: NonNullable<SettingsFields[N]>
  hint?: string
  children(ids: FieldIds): ReactNode
}

/** A field that is either unset (its fallback, never sent) or set to a value of its own, with its error beside it. */
export function Setting<N extends FieldPath<SettingsFields>>({
  idPrefix,
  name,
  label,
  fallback,
  initial,
  hint,
  children,
}: SettingProps<N>) {
  const { control, setValue } = useFormContext<SettingsFields>()
  const value = useWatch({ control, name })
  const { errors } = useFormState({ control, name })
  const base = `${idPrefix}-${name}`
  const error = errors[name]?.message
  const set = !fallback || value !== undefined
  const described = [hint && `${base}-hint`, error && `${base}-error`].filter(Boolean).join(' ')

  return (
    <fieldset className="setting">
      <legend id={`${base}-label`}>{label}</legend>
      {fallback && (
        <label className="setting-toggle">
          <input
            type="checkbox"
            checked={set}
            aria-label={`${fallback.toggle} ${label}`}
            aria-describedby={set ? undefined : `${base}-fallback`}
            onChange={(e) =>
              // An unset field is undefined, so it is left out of the settings and of the request.
              setValue(name, (e.target.checked ? initial : undefined) as PathValue<SettingsFields, N>, {
                shouldValidate: true,
                shouldDirty: true,
              })
            }
          />
          {fallback.toggle}
        </label>
      )}
      {set ? (
        children({
          control: `${base}-input`,
          label: `${base}-label`,
          describedBy: described,
          invalid: !!error,
        })
      ) : (
        <p id={`${base}-fallback`} className="setting-fallback">
          {fallback?.text}
        </p>
      )}
      {set && hint && (
        <span id={`${base}-hint`} className="hint">
          {hint}
        </span>
      )}
      {set && error && (
        <span id={`${base}-error`} className="field-error">
          {error}
        </span>
      )}
    </fieldset>
  )
}

type NumberName = 'speed' | DecodingField

interface NumberSettingProps extends Omit<SettingProps<NumberName>, 'children' | 'name' | 'initial'> {
  name: NumberName
  initial: number
  range: { min: number; max: number }
  step: number
  /** A slider beside the number, for fields tried by ear (speed). */
  slider?: boolean
}

function NumberSetting({ range, step, slider, ...props }: NumberSettingProps) {
  const { register, setValue, control } = useFormContext<SettingsFields>()
  const value = useWatch({ control, name: props.name })
  return (
    <Setting {...props}>
      {(ids) => (
        <div className="number-control">
          {slider && (
            <input
              type="range"
              min={range.min}
              max={range.max}
              step={step}
              value={typeof value === 'number' && Number.isFinite(value) ? value : props.initial}
              aria-labelledby={ids.label}
              aria-describedby={ids.describedBy || undefined}
              onChange={(e) =>
                setValue(props.name, e.target.valueAsNumber, { shouldValidate: true, shouldDirty: true })
              }
            />
          )}
          <input
            id={ids.control}
            type="number"
            min={range.min}
            max={range.max}
            step={step}
            aria-labelledby={ids.label}
            aria-describedby={ids.describedBy || undefined}
            aria-invalid={ids.invalid || undefined}
            // Empty reads as NaN, which the schema rejects with the field's message instead of treating as unset.
            {...register(props.name, { valueAsNumber: true })}
          />
        </div>
      )}
    </Setting>
  )
}

export function SpeedSetting(props: { idPrefix: string; fallback: Fallback; initial: number }) {
  return (
    <NumberSetting
      {...props}
      name="speed"
      label="Speed"
      range={SPEED_RANGE}
      step={0.05}
      slider
      hint={`${SPEED_RANGE.min} to ${SPEED_RANGE.max}; 1 is normal`}
    />
  )
}

export function ModelSetting(props: { idPrefix: string; fallback?: Fallback; initial: ModelId }) {
  const { register } = useFormContext<SettingsFields>()
  return (
    <Setting {...props} name="model" label="Model">
      {(ids) => (
        <select id={ids.control} aria-labelledby={ids.label} {...register('model')}>
          {MODELS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      )}
    </Setting>
  )
}

function ModeSetting(props: { idPrefix: string; fallback: Fallback; initial: Mode }) {
  const { control, setValue } = useFormContext<SettingsFields>()
  const value = useWatch({ control, name: 'mode' })
  return (
    <Setting {...props} name="mode" label="Mode">
      {(ids) => (
        <div className="mode-choice">
          {MODES.map((mode) => (
            <label key={mode}>
              {/* Controlled with a name of its own: two forms on one page must not share a radio group. */}
              <input
                type="radio"
                name={`${ids.control}-radio`}
                value={mode}
                checked={value === mode}
                onChange={() => setValue('mode', mode, { shouldValidate: true, shouldDirty: true })}
              />
              {mode} <span className="preset">({describePreset(mode)})</span>
            </label>
          ))}
        </div>
      )}
    </Setting>
  )
}

const DECODING_STEPS: Record<DecodingField, number> = {
  temperature: 0.05,
  top_p: 0.01,
  top_k: 1,
  min_p: 0.01,
  max_new_tokens: 1,
}

const DECODING_HINTS: Record<DecodingField, string> = {
  temperature: 'below 1 steadier, above 1 livelier',
  top_p: '1 turns the filter off',
  top_k: 'whole number; 0 turns the filter off',
  min_p: 'drops tokens below this share of the likeliest one',
  max_new_tokens: 'whole number; audio tokens per sentence, about 25 a second; too few cut it off',
}

/** What a decoding field starts from once set: the value in force for it (the given one, else the preset's). */
function decodingStart(settings: SettingsFields, field: DecodingField): number {
  return settings[field] ?? presetValue(settings.mode, field) ?? DECODING_RANGES[field].max
}

interface DecodingFieldsetProps {
  idPrefix: string
  /** The model the settings go to: the 0.8 models ignore everything here (contract 2.1 rule 4). */
  model: ModelId
  modeFallback: Fallback
  fallback(field: DecodingField): Fallback
  /** The settings in force for the fields, whose values a field starts from once set. */
  current: SettingsFields
}

/** Mode and the decoding fields, disabled with the reason under a 0.8 model. */
export function DecodingFieldset({
  idPrefix,
  model,
  modeFallback,
  fallback,
  current,
}: DecodingFieldsetProps) {
  const { getValues, setValue } = useFormContext<SettingsFields>()
  const ignored = !isSecondGen(model)
  useEffect(() => {
    // A disabled field can't be corrected, so an invalid entry returns to its fallback rather than block the form.
    if (!ignored) return
    for (const field of DECODING_FIELDS) {
      const value = getValues(field)
      if (value != null && !lineOverrideSchema.shape[field].safeParse(value).success)
        setValue(field, undefined, { shouldValidate: true })
    }
  }, [ignored, getValues, setValue])
  const note = `${idPrefix}-decoding-note`
  return (
    <fieldset className="decoding" disabled={ignored} aria-describedby={ignored ? note : undefined}>
      <legend>Mode and decoding</legend>
      {ignored && (
        <p id={note} className="hint">
          {model} ignores mode and decoding, so the studio does not send them. They apply to svc-tts-2-latest.
        </p>
      )}
      <ModeSetting idPrefix={idPrefix} fallback={modeFallback} initial={current.mode ?? DEFAULT_MODE} />
      {DECODING_FIELDS.map((field) => (
        <NumberSetting
          key={field}
          idPrefix={idPrefix}
          name={field}
          label={field}
          fallback={fallback(field)}
          initial={decodingStart(current, field)}
          range={DECODING_RANGES[field]}
          step={DECODING_STEPS[field]}
          hint={`${DECODING_RANGES[field].min} to ${DECODING_RANGES[field].max}; ${DECODING_HINTS[field]}`}
        />
      ))}
    </fieldset>
  )
}

/**
 * Reports each valid state of the form as `parse` reads it (null: invalid, not reported), and takes a `value` from
 * outside into the form unless it is the one just reported, so typing is never overwritten by its own echo.
 */
export function useLiveReport<T extends LineOverride | undefined>(
  { subscribe, reset }: Pick<UseFormReturn<SettingsFields>, 'subscribe' | 'reset'>,
  parse: (values: SettingsFields) => T | null,
  value: T,
  onChange: (settings: T) => void,
) {
  const reported = useRef(value)
  const latest = useRef({ parse, onChange })
  useEffect(() => {
    latest.current = { parse, onChange }
  })
  useEffect(
    () =>
      subscribe({
        formState: { values: true },
        callback: ({ values }) => {
          const next = latest.current.parse(values)
          if (next === null || sameSettings(next, reported.current)) return
          reported.current = next
          latest.current.onChange(next)
        },
      }),
    [subscribe],
  )
  useEffect(() => {
    if (sameSettings(value, reported.current)) return
    reported.current = value
    reset(value ?? {})
  }, [value, reset])
}
