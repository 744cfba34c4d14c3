import { zodResolver } from '@hookform/resolvers/zod'
import { useQueryClient } from '@tanstack/react-query'
import { useId } from 'react'
import { type Resolver, useForm } from 'react-hook-form'
import {
  CONSENT_MAX_SECONDS,
  CONSENT_MIN_SECONDS,
  CONSENT_PHRASE,
  CONSENT_RECORDING_MAX_BYTES,
} from '../../../schema/index.ts'
import { createConsent } from '../../api/consents.ts'
import { describeFailure, type Failure } from './failures.ts'
import { ClipForm, ClipSection, NameField, useFailureFocus } from './form-parts.tsx'
import { type ConsentFields, type ConsentInput, consentFormSchema } from './form-schemas.ts'
import { checkLanguageTag } from './format.ts'
import { refreshAfterChange } from './queries.ts'
import { useSave } from './useSave.ts'

const resolver = zodResolver(consentFormSchema) as Resolver<ConsentFields, unknown, ConsentInput>

/** The fields a service failure can point at, by the form field that holds each. */
const FAILURE_FIELDS: Partial<Record<NonNullable<Failure['field']>, keyof ConsentFields>> = {
  name: 'name',
  language: 'language',
  transcript: 'transcript',
  recording: 'clip',
}

/** Record (or upload) the owner of a voice reading the consent phrase, and save it as a consent. */
export function ConsentForm() {
  const id = useId()
  const queryClient = useQueryClient()
  const form = useForm<ConsentFields, unknown, ConsentInput>({
    resolver,
    defaultValues: { name: '', language: 'en-US', clip: null, transcript: '' },
  })
  const {
    register,
    handleSubmit,
    reset,
    getValues,
    setValue,
    setFocus,
    trigger,
    formState: { errors },
  } = form
  const save = useSave(
    'the consent',
    {
      checking: 'Checking the recording…',
      slow: 'The service may be checking other recordings first. Keep waiting, or cancel.',
    },
    () => void refreshAfterChange(queryClient),
  )
  const { busy } = save

  useFailureFocus(save, setFocus, FAILURE_FIELDS)

  const onSubmit = handleSubmit((input) =>
    save.start({
      send: (opts) =>
        createConsent(
          { name: input.name, language: input.language, recording: input.clip, transcript: input.transcript },
          opts,
        ),
      saved: async (consent) => {
        // The language stays: the next consent is most often in the same one.
        reset({ name: '', language: input.language, clip: null, transcript: '' })
        await refreshAfterChange(queryClient)
        return `Consent for “${consent.name}” saved. You can now create voices bound to it.`
      },
      failed: (err) => describeFailure(err, 'consent'),
    }),
  )

  return (
    <section aria-labelledby={`${id}-heading`} className="panel">
      <h2 id={`${id}-heading`}>Record a consent</h2>
      <figure className="phrase">
        <figcaption id={`${id}-phrase-caption`}>
          The owner of the voice reads this sentence aloud, exactly as written, in one go:
        </figcaption>
        <blockquote lang="en" aria-describedby={`${id}-phrase-caption`}>
          {CONSENT_PHRASE}
        </blockquote>
      </figure>
      <ClipForm form={form} busy={busy} onSubmit={onSubmit}>
        <NameField label="Name of the voice’s owner" disabled={busy} />
        <div className="field">
          <label htmlFor={`${id}-language`}>Language of the recording</label>
          <input
            id={`${id}-language`}
            autoComplete="off"
            spellCheck={false}
            disabled={busy}
            aria-invalid={errors.language ? true : undefined}
            aria-describedby={`${id}-language-hint${errors.language ? ` ${id}-language-error` : ''}`}
            {...register('language', {
              // Leaving the field puts a good tag in canonical case, or says at once what is wrong with it.
              onBlur: () => {
                const checked = checkLanguageTag(getValues('language'))
                if (checked.tag) setValue('language', checked.tag)
                void trigger('language')
              },
            })}
          />
          <span id={`${id}-language-hint`} className="hint">
            A language tag such as en-US, en-GB or de-DE.
          </span>
          {errors.language && (
            <span id={`${id}-language-error`} className="field-error">
              {errors.language.message}
            </span>
          )}
        </div>
        <ClipSection
          legend="Consent recording"
          range={{ minSeconds: CONSENT_MIN_SECONDS, maxSeconds: CONSENT_MAX_SECONDS }}
          maxBytes={CONSENT_RECORDING_MAX_BYTES}
          basename="consent"
          transcriptLabel="Transcript (optional)"
          transcriptHint="Leave empty and the service listens to the recording to check the phrase. Fill it in (with the phrase as spoken) only when the service cannot recognize speech."
          save={save}
          submitLabel="Save consent"
          busyLabel="Saving consent…"
        />
      </ClipForm>
    </section>
  )
}
