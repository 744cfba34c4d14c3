import { describe, expect, it } from 'vitest'
import { capacityDelayMs } from '../../api/capacity-retry.ts'
import { ApiRequestError } from '../../api/http.ts'
import { describeFailure, isCreationBusy } from './failures.ts'
import { consentFormSchema, voiceFormSchema } from './form-schemas.ts'
import { checkLanguageTag, consentCount, shortId, VOICE_CREATION_RETRY } from './format.ts'

function serviceError(status: number, code: string | null, param: string | null, message = 'Refused.') {
  return new ApiRequestError(
    status,
    { error: { message, type: 'invalid_request_error', param, code }, request_id: 'req_1' },
    'req_1',
  )
}

describe('describeFailure', () => {
  it('explains a wrong phrase with what the service heard, and asks to record again', () => {
    const f = describeFailure(
      serviceError(400, 'consent_phrase_mismatch', 'recording', 'Heard "I am the owner of this"'),
      'consent',
    )
    expect(f.what).toBe('The recording does not say the consent phrase. Heard "I am the owner of this".')
    expect(f.next).toMatch(/exactly as written/)
    expect(f.field).toBe('recording')
  })

  it('explains clip length, several speakers, music and unreadable audio in plain words', () => {
    expect(
      describeFailure(serviceError(400, 'recording_duration_out_of_range', 'recording'), 'consent').what,
    ).toMatch(/^The consent recording is too short or too long\./)
    const speakers = describeFailure(serviceError(400, 'multiple_speakers', 'recording'), 'consent')
    expect(speakers.what).toBe('More than one voice can be heard in the consent recording.')
    expect(speakers.next).toMatch(/nobody else/)
    expect(speakers.field).toBe('recording')
    expect(describeFailure(serviceError(400, 'music_detected', 'recording'), 'consent').what).toMatch(/Music/)
    const bad = describeFailure(serviceError(400, 'invalid_audio', 'audio_sample'), 'voice')
    expect(bad.what).toMatch(/^The clip could not be used as a voice/)
    expect(bad.field).toBe('sample')
  })

  it('says what to record instead when a consent recording holds too little or too noisy speech', () => {
    const short = describeFailure(
      serviceError(
        400,
        'invalid_audio',
        'recording',
        'The consent recording holds too little speech (0.8 s).',
      ),
      'consent',
    )
    expect(short).toMatchObject({
      next: expect.stringMatching(/^Record again for longer/),
      field: 'recording',
    })
    const noisy = describeFailure(
      serviceError(
        400,
        'invalid_audio',
        'recording',
        'The consent recording is too noisy to check who speaks.',
      ),
      'consent',
    )
    expect(noisy.next).toMatch(/closer to the microphone.*in a quieter room/)
  })

  it('says to record longer when a sample holds too little voice to check against its consent', () => {
    const short = describeFailure(
      serviceError(
        400,
        'invalid_audio',
        'audio_sample',
        "The voice sample holds too little speech (1.1 s of voice; at least 1.75 s is needed) to check that the consent's speaker is speaking.",
      ),
      'voice',
    )
    expect(short.what).toMatch(/at least 1\.75 s is needed/)
    expect(short.next).toMatch(/^Record again for longer: several seconds of the same person/)
    expect(short.field).toBe('sample')
  })

  it("says the sample's speaker does not match the consent's speaker, with guidance", () => {
    const f = describeFailure(serviceError(422, 'speaker_verification_failed', 'audio_sample'), 'voice')
    expect(f.what).toBe("The sample's speaker does not match the consent's speaker.")
    expect(f.next).toMatch(/same person who recorded the consent/)
    expect(f.field).toBe('sample')
  })

  it('points at the transcript when recognition is missing, and at the consent when it is gone', () => {
    expect(describeFailure(serviceError(503, 'recognition_unavailable', null), 'consent').field).toBe(
      'transcript',
    )
    expect(describeFailure(serviceError(404, 'consent_not_found', 'consent'), 'voice')).toMatchObject({
      field: 'consent',
      what: expect.stringMatching(/no longer exists/),
    })
  })

  it('handles sizes, roles, validation details and a silent backend', () => {
    expect(describeFailure(new ApiRequestError(413, null, null), 'consent').what).toMatch(/too large/)
    const forbidden = new ApiRequestError(
      403,
      {
        error: { message: 'No.', type: 'permission_error', param: null, code: 'forbidden_for_role' },
        request_id: 'req-1',
      },
      null,
    )
    expect(describeFailure(forbidden, 'revoke').what).toBe('Your role may not revoke the consent.')
    expect(describeFailure(new Error('boom'), 'delete-voice').what).toBe('Could not delete the voice: boom.')
    const detail = describeFailure(
      new ApiRequestError(400, { detail: 'language must be a language tag', param: 'language' }, null),
      'consent',
    )
    expect(detail).toMatchObject({ field: 'language', next: 'Correct the language tag and send again.' })
    expect(describeFailure(new TypeError('Failed to fetch'), 'voice').what).toMatch(/not answering/)
  })

  it('recognizes a busy voice creation', () => {
    expect(isCreationBusy(serviceError(429, 'custom_voice_creation_busy', null))).toBe(true)
    expect(isCreationBusy(serviceError(429, 'rate_limit_exceeded', null))).toBe(false)
    expect(isCreationBusy(new Error('x'))).toBe(false)
  })
})

describe('format helpers', () => {
  it('shortens ids to prefix, head and tail', () => {
    expect(shortId('voice_0123456789abcdef0123456789abcdef')).toBe('voice_0123…cdef')
    expect(shortId('cons_ffffeeee00000000000000000000aaaa')).toBe('cons_ffff…aaaa')
    expect(shortId('short_id')).toBe('short_id')
  })

  it('waits for a busy creation by the shared backoff, from 5 s up to 60 s, never sooner than Retry-After', () => {
    const low = () => 0
    const high = () => 0.999_999
    const wait = (retry: number, retryAfter: number | null, random: () => number) =>
      capacityDelayMs(retry, retryAfter, random, VOICE_CREATION_RETRY)
    expect(wait(1, null, low)).toBe(1_000)
    expect(wait(1, null, high)).toBe(6_000)
    expect(wait(2, null, high)).toBe(11_000)
    expect(wait(10, null, high)).toBe(1_000 + VOICE_CREATION_RETRY.capMs)
    expect(wait(1, 30, low)).toBe(30_000)
  })

  it('accepts language tags of the form xx or xx-XX, in canonical case', () => {
    expect(checkLanguageTag('en-us')).toEqual({ tag: 'en-US', problem: null })
    expect(checkLanguageTag(' de ')).toEqual({ tag: 'de', problem: null })
    expect(checkLanguageTag('').problem).toMatch(/Enter the language/)
    expect(checkLanguageTag('english').problem).toMatch(/not a language tag/)
    expect(checkLanguageTag('en_US').problem).toMatch(/not a language tag/)
  })
})

describe('consentCount', () => {
  it('counts only what is loaded while older consents remain, never claiming the page is all', () => {
    expect(consentCount({ loaded: 20, more: true, search: '', matching: 20 })).toBe(
      'The newest 20 consents; older ones load below.',
    )
    expect(consentCount({ loaded: 21, more: false, search: '', matching: 21 })).toBe(
      '21 consents, newest first.',
    )
    expect(consentCount({ loaded: 1, more: false, search: '', matching: 1 })).toBe('1 consent, newest first.')
    expect(consentCount({ loaded: 0, more: false, search: '', matching: 0 })).toBe(
      'No consents yet. Record one above.',
    )
    expect(consentCount({ loaded: 20, more: true, search: 'ann', matching: 2 })).toBe(
      '2 of the 20 loaded consents match “ann”.',
    )
  })
})

describe('the forms’ checks', () => {
  const clip = (problem: string | null = null) => ({
    blob: new Blob(['x']),
    filename: 'sample.webm',
    seconds: 3,
    source: 'recorded' as const,
    problem,
  })
  const messages = (result: { error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
    Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]))

  it('shows every problem of the voice form at once, the consent message fitting the list', () => {
    const empty = { name: ' ', binding: 'consent' as const, consent: '', clip: null, transcript: '' }
    expect(messages(voiceFormSchema({ consentsExist: true }).safeParse(empty))).toEqual({
      name: 'Enter a name for the voice.',
      consent: 'Choose the consent of the person in the sample.',
      clip: 'Record a sample or choose a file first.',
    })
    expect(messages(voiceFormSchema({ consentsExist: false }).safeParse(empty)).consent).toBe(
      'There is no consent yet: record one above, or choose the extension form.',
    )
    const tooShort = { ...empty, name: 'Ada', binding: 'extension' as const, clip: clip('Too short.') }
    expect(messages(voiceFormSchema({ consentsExist: true }).safeParse(tooShort))).toEqual({
      clip: 'Too short.',
    })
  })

  it('sends a voice trimmed, with its consent only when bound, and no empty transcript', () => {
    const sample = clip()
    const bound = voiceFormSchema({ consentsExist: true }).parse({
      name: ' Ada ',
      binding: 'consent',
      consent: 'cons_1',
      clip: sample,
      transcript: '  ',
    })
    expect(bound).toEqual({
      name: 'Ada',
      consent: 'cons_1',
      sample: { blob: sample.blob, filename: 'sample.webm' },
      transcript: undefined,
    })
    const free = voiceFormSchema({ consentsExist: true }).parse({
      name: 'Ada',
      binding: 'extension',
      consent: 'cons_1',
      clip: sample,
      transcript: ' Hello. ',
    })
    expect(free).toMatchObject({ consent: null, transcript: 'Hello.' })
  })

  it('checks and canonicalizes the consent’s language tag', () => {
    expect(
      consentFormSchema.parse({ name: 'Ada', language: 'en-gb', clip: clip(), transcript: '' }).language,
    ).toBe('en-GB')
    expect(
      messages(consentFormSchema.safeParse({ name: '', language: 'english', clip: null, transcript: '' })),
    ).toEqual({
      name: 'Enter the name of the voice’s owner.',
      language: '"english" is not a language tag of the form xx or xx-XX, such as en, en-US or de-DE.',
      clip: 'Record the phrase or choose a file first.',
    })
  })
})
