import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useMemo } from 'react'
import { type Resolver, useForm, useWatch } from 'react-hook-form'
import {
  VOICE_SAMPLE_MAX_BYTES,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
} from '../../../schema/index.ts'
import { createVoice } from '../../api/voices.ts'
import { describeFailure, type Failure, isCreationBusy } from './failures.ts'
import { ClipForm, ClipSection, NameField, useFailureFocus } from './form-parts.tsx'
import { type VoiceFields, type VoiceInput, voiceFormSchema } from './form-schemas.ts'
import { shortId, VOICE_CREATION_RETRY } from './format.ts'
import { refreshAfterChange, useConsents } from './queries.ts'
import { type BusyRetry, useSave } from './useSave.ts'

interface Context {
  consentsExist: boolean
}

// The schema's consent message depends on the list, which the form passes as the resolver's context.
const resolver: Resolver<VoiceFields, Context, VoiceInput> = (values, context, options) =>
  (
    zodResolver(voiceFormSchema(context ?? { consentsExist: true })) as Resolver<
      VoiceFields,
      Context,
      VoiceInput
    >
  )(values, context, options)

const EMPTY: VoiceFields = { name: '', binding: 'consent', consent: '', clip: null, transcript: '' }

/** The fields a service failure can point at, by the form field that holds each. */
const FAILURE_FIELDS: Partial<Record<NonNullable<Failure['field']>, keyof VoiceFields>> = {
  name: 'name',
  consent: 'consent',
  sample: 'clip',
  transcript: 'transcript',
}

/**
 * A busy creation (429 `custom_voice_creation_busy`, after the service waited up to two minutes for a cloning slot)
 * is waited out by the page and tried again, since the backend cannot resend an upload.
 */
const BUSY_RETRY: BusyRetry = {
  when: isCreationBusy,
  policy: VOICE_CREATION_RETRY,
  reason: 'The service is busy creating other voices.',
  gaveUp: {
    what: `The service stayed busy creating other voices through ${VOICE_CREATION_RETRY.maxAttempts} attempts.`,
    next: 'Try again in a few minutes.',
  },
}

/**
 * Create a saved voice from a sample, bound to a consent (the speaker must match) or in the extension form. A busy
 * service (429) is retried by itself with exponential backoff, visibly, with Retry now and Cancel.
 */
export function VoiceForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const consents = useConsents()
  const all = useMemo(() => consents.data?.pages.flatMap((page) => page.data) ?? [], [consents.data])
  const form = useForm<VoiceFields, Context, VoiceInput>({
    resolver,
    context: { consentsExist: all.length > 0 },
    defaultValues: EMPTY,
  })
  const {
    control,
    register,
    handleSubmit,
    reset,
    clearErrors,
    setValue,
    setFocus,
    formState: { errors },
  } = form
  const [binding, consentId] = useWatch({ control, name: ['binding', 'consent'] })
  const save = useSave(
    'the voice',
    {
      checking: 'Checking the sample…',
      slow: 'The service may be finishing other voices first: it waits up to 2 minutes for its turn, then this page tries again by itself. Keep waiting, or cancel.',
    },
    () => void refreshAfterChange(queryClient),
    BUSY_RETRY,
  )
  const { busy } = save

  // A consent that was revoked meanwhile cannot stay chosen.
  useEffect(() => {
    if (consentId && consents.isSuccess && !all.some((c) => c.id === consentId)) setValue('consent', '')
  }, [consentId, consents.isSuccess, all, setValue])

  useFailureFocus(save, setFocus, FAILURE_FIELDS)

  const onSubmit = handleSubmit((input) =>
    save.start({
      send: (opts) => createVoice(input, opts),
      saved: async (voice) => {
        reset(EMPTY)
        await refreshAfterChange(queryClient)
        return `Voice “${voice.name}” saved${input.consent ? '' : ' without a consent'}. It is now in the list below and in the script page’s voice picker.`
      },
      failed: (err) => describeFailure(err, 'voice'),
    }),
  )

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Create a saved voice</h2>
      <ClipForm form={form} busy={busy} onSubmit={onSubmit}>
        <NameField label="Voice name" disabled={busy} />
        <fieldset className="binding" disabled={busy}>
          <legend>Consent</legend>
          <label>
            <input type="radio" value="consent" {...register('binding')} />
            Bound to a consent (the sample’s speaker must match it)
          </label>
          <label>
            <input
              type="radio"
              value="extension"
              {...register('binding', { onChange: () => clearErrors('consent') })}
            />
            No consent (extension form)
          </label>
          {binding === 'consent' && (
            <div className="field">
              <label htmlFor={`${id}-consent`}>Consent of the person in the sample</label>
              <select
                id={`${id}-consent`}
                aria-invalid={errors.consent ? true : undefined}
                aria-describedby={errors.consent ? `${id}-consent-error` : undefined}
                {...register('consent')}
              >
                <option value="">{consents.isPending ? 'Loading consents…' : 'Choose a consent…'}</option>
                {all.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} ({c.language}, {shortId(c.id)})
                  </option>
                ))}
              </select>
              {errors.consent && (
                <span id={`${id}-consent-error`} className="field-error">
                  {errors.consent.message}
                </span>
              )}
            </div>
          )}
        </fieldset>
        <ClipSection
          legend="Voice sample"
          range={{ minSeconds: VOICE_SAMPLE_MIN_SECONDS, maxSeconds: VOICE_SAMPLE_MAX_SECONDS }}
          maxBytes={VOICE_SAMPLE_MAX_BYTES}
          basename="sample"
          transcriptLabel="Transcript of the sample (optional)"
          transcriptHint="The exact words of the sample. Leave empty and the service transcribes it itself."
          save={save}
          submitLabel="Save voice"
          busyLabel="Saving voice…"
        />
      </ClipForm>
    </section>
  )
}
