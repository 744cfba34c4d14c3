import { z } from 'zod'
import { NAME_MAX_CHARS } from '../../../schema/index.ts'
import type { AudioUpload } from '../../api/http.ts'
import type { AudioClip } from './AudioInput.tsx'
import { checkLanguageTag } from './format.ts'

/**
 * What the consent and voice forms check before sending, with the messages shown under each field. Each field is
 * checked on its own, so a submit shows every problem at once; the forms hold these as react-hook-form resolvers.
 */

/** A clip to send: there is one, and the recorder or the file check found nothing wrong with it. */
function clipField(missing: string) {
  // A refinement, then a transform: a refinement's issue leaves the form's other checks running.
  return z
    .custom<AudioClip | null>()
    .superRefine((clip, ctx) => {
      if (!clip || clip.problem) ctx.addIssue({ code: 'custom', message: clip?.problem ?? missing })
    })
    .transform(
      (clip): AudioUpload => ({ blob: (clip as AudioClip).blob, filename: (clip as AudioClip).filename }),
    )
}

/** An optional transcript: sent only when it says something. */
const transcriptField = z
  .string()
  .transform((text) => text.trim() || undefined)
  .optional()

export const consentFormSchema = z.object({
  name: z.string().trim().min(1, 'Enter the name of the voice’s owner.').max(NAME_MAX_CHARS),
  language: z
    .string()
    .superRefine((tag, ctx) => {
      const { problem } = checkLanguageTag(tag)
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
    })
    .transform((tag) => checkLanguageTag(tag).tag ?? ''),
  clip: clipField('Record the phrase or choose a file first.'),
  transcript: transcriptField,
})
export type ConsentFields = z.input<typeof consentFormSchema>
export type ConsentInput = z.output<typeof consentFormSchema>

/** The owner's form behind a consent link: the administrator gave the name and language, so only the clip. */
export const remoteConsentFormSchema = z.object({
  clip: clipField('Record the phrase or choose a file first.'),
  transcript: transcriptField,
})
export type RemoteConsentFields = z.input<typeof remoteConsentFormSchema>
export type RemoteConsentInput = z.output<typeof remoteConsentFormSchema>

export type Binding = 'consent' | 'extension'

/**
 * The voice form's checks. Which consent message fits depends on whether there is any consent to choose, which the
 * form passes as react-hook-form's resolver context.
 */
export function voiceFormSchema(context: { consentsExist: boolean }) {
  return z
    .object({
      name: z.string().trim().min(1, 'Enter a name for the voice.').max(NAME_MAX_CHARS),
      binding: z.enum(['consent', 'extension']),
      consent: z.string(),
      clip: clipField('Record a sample or choose a file first.'),
      transcript: transcriptField,
    })
    .superRefine((fields, ctx) => {
      if (fields.binding === 'consent' && !fields.consent)
        ctx.addIssue({
          code: 'custom',
          path: ['consent'],
          message: context.consentsExist
            ? 'Choose the consent of the person in the sample.'
            : 'There is no consent yet: record one above, or choose the extension form.',
        })
    })
    .transform(({ name, binding, consent, clip, transcript }) => ({
      name,
      sample: clip,
      consent: binding === 'consent' ? consent : null,
      transcript,
    }))
}
export type VoiceFields = z.input<ReturnType<typeof voiceFormSchema>>
export type VoiceInput = z.output<ReturnType<typeof voiceFormSchema>>
