import {
  type BaseSyntheticEvent,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import {
  type FieldValues,
  FormProvider,
  type Path,
  type UseFormReturn,
  type UseFormSetFocus,
  useController,
  useFormContext,
  useFormState,
} from 'react-hook-form'
import { NAME_MAX_CHARS } from '../../../schema/index.ts'
import type { DurationRange } from '../../audio/recorder.ts'
import { type AudioClip, AudioInput } from './AudioInput.tsx'
import type { Failure } from './failures.ts'
import { FailureMessage } from './parts.tsx'
import type { Save } from './useSave.ts'

/** What the consent and voice forms share: their name field, the clip and the save, and where a failure points. */

/** The form element of both, giving its parts the form's context; a submit while a save runs does nothing. */
export function ClipForm<T extends FieldValues, C, U extends FieldValues>({
  form,
  busy,
  onSubmit,
  children,
}: {
  form: UseFormReturn<T, C, U>
  busy: boolean
  onSubmit: (e: BaseSyntheticEvent) => Promise<void>
  children: ReactNode
}) {
  return (
    <FormProvider {...form}>
      <form
        className="voice-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          if (!busy) void onSubmit(e)
        }}
      >
        {children}
      </form>
    </FormProvider>
  )
}

/** The fields every clip form has, whatever else it asks. */
export interface ClipFields {
  clip: AudioClip | null
  transcript: string
}

/**
 * The forms' name field (the voice's, or its owner's), with its message under it. Disabled while a save runs.
 */
export function NameField({ label, disabled }: { label: string; disabled: boolean }) {
  const id = useId()
  const { register, formState } = useFormContext<{ name: string }>()
  const error = formState.errors.name?.message
  return (
    <div className="field">
      <label htmlFor={`${id}-name`}>{label}</label>
      <input
        id={`${id}-name`}
        maxLength={NAME_MAX_CHARS}
        autoComplete="off"
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-name-error` : undefined}
        {...register('name')}
      />
      {error && (
        <span id={`${id}-name-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  )
}

/**
 * A failure about one field (the service's `param`) sends focus there, once the save has ended: while it runs the
 * fields are disabled, and a disabled field cannot take focus.
 */
export function useFailureFocus<T extends FieldValues>(
  save: Save,
  setFocus: UseFormSetFocus<T>,
  fields: Partial<Record<NonNullable<Failure['field']>, Path<T>>>,
) {
  const { failure, busy } = save
  // biome-ignore lint/correctness/useExhaustiveDependencies: `fields` is the form's constant map.
  useEffect(() => {
    const name = failure?.field && fields[failure.field]
    if (name && !busy) setFocus(name)
  }, [failure, busy, setFocus])
}

/**
 * The part the consent and voice forms share: the clip (recorded or uploaded, with its checks), its optional
 * transcript, and how the save goes — the step and its progress, a long wait explained, the busy service's
 * countdown, Cancel, the failure or the result — above the submit button. Lives in a react-hook-form FormProvider
 * whose fields include `ClipFields`.
 */
export function ClipSection({
  legend,
  range,
  maxBytes,
  basename,
  transcriptLabel,
  transcriptHint,
  save,
  submitLabel,
  busyLabel,
}: {
  legend: string
  range: DurationRange
  maxBytes: number
  basename: string
  transcriptLabel: string
  transcriptHint: string
  save: Save
  submitLabel: string
  busyLabel: string
}) {
  const id = useId()
  const { control, register } = useFormContext<ClipFields>()
  const { field } = useController({ control, name: 'clip' })
  const { errors } = useFormState({ control, name: 'clip' })
  const submitRef = useRef<HTMLButtonElement>(null)
  const { busy } = save
  // While a chosen file is read the clip is empty: a save then would be refused for want of a clip and the refusal
  // cleared a moment later when the clip arrives, leaving nothing saved and nothing said. So Save waits for it.
  const [reading, setReading] = useState(false)

  // Cancel and Retry now go away when the save ends: focus they held moves to the submit button, not the page.
  const wasBusy = useRef(false)
  useEffect(() => {
    if (wasBusy.current && !busy && document.activeElement === document.body) submitRef.current?.focus()
    wasBusy.current = busy
  }, [busy])

  return (
    <>
      <div className="wide">
        <AudioInput
          legend={legend}
          range={range}
          maxBytes={maxBytes}
          basename={basename}
          clip={field.value}
          onClip={field.onChange}
          onReading={setReading}
          disabled={busy}
          error={errors.clip?.message}
          firstControlRef={field.ref}
        />
      </div>
      <div className="field wide">
        <label htmlFor={`${id}-transcript`}>{transcriptLabel}</label>
        <textarea
          id={`${id}-transcript`}
          rows={2}
          disabled={busy}
          aria-describedby={`${id}-transcript-hint`}
          {...register('transcript')}
        />
        <span id={`${id}-transcript-hint`} className="hint">
          {transcriptHint}
        </span>
      </div>
      <div className="wide">
        <SaveProgress save={save} submitRef={submitRef} />
        {/* Always there, so that a screen reader hears each step as it starts. */}
        <p aria-live="polite" className="visually-hidden">
          {save.status?.announcement ?? ''}
        </p>
        {save.failure && <FailureMessage failure={save.failure} />}
        <p aria-live="polite" className="success">
          {save.message}
        </p>
        <div className="buttons">
          <button ref={submitRef} type="submit" aria-disabled={busy || undefined} disabled={reading}>
            {busy ? busyLabel : submitLabel}
          </button>
        </div>
      </div>
    </>
  )
}

/** The step of a running save, with Cancel; or the busy service's countdown, with Retry now and Cancel. */
function SaveProgress({ save, submitRef }: { save: Save; submitRef: RefObject<HTMLButtonElement | null> }) {
  const id = useId()
  const { state, status, now, retry } = save
  if (state.step === 'idle') return null
  const cancel = (
    <button
      type="button"
      onClick={() => {
        submitRef.current?.focus()
        save.cancel()
      }}
    >
      Cancel
    </button>
  )
  if (state.step === 'waiting') {
    const secondsLeft = Math.max(0, Math.ceil((state.at - now) / 1000))
    return (
      <div className="busy-retry">
        <p>
          {retry?.reason} Trying again in {secondsLeft} second{secondsLeft === 1 ? '' : 's'} (attempt{' '}
          {state.attempt} of {retry?.policy.maxAttempts}).
        </p>
        <div className="buttons">
          <button
            type="button"
            onClick={() => {
              submitRef.current?.focus()
              save.retryNow()
            }}
          >
            Retry now
          </button>
          {cancel}
        </div>
      </div>
    )
  }
  if (!status) return null
  return (
    <div className={status.slow ? 'upload-progress slow' : 'upload-progress'}>
      <label htmlFor={id}>{status.label}</label>
      <progress id={id} max={1} value={status.fraction ?? undefined} />
      {status.slow && <p>{status.slow}</p>}
      <div className="buttons">{cancel}</div>
    </div>
  )
}
