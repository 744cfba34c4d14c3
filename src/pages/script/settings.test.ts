import { describe, expect, it } from 'vitest'
import {
  LEGACY_MODELS,
  type LineOverride,
  lineOverrideSchema,
  speechRequestSchema,
  type VoiceSettings,
  voiceSettingsSchema,
} from '../../../schema/index.ts'
import {
  compactOverride,
  describePreset,
  describeSettings,
  effectiveSettings,
  presetValue,
  resolveLine,
  sameSettings,
  toSpeechRequest,
  voiceFitsModel,
} from './settings.ts'

const SAVED = `voice_${'0123456789abcdef'.repeat(2)}`
const second: VoiceSettings = { model: 'svc-tts-2-latest', voice: 'eleanor_somber_female_32' }
const legacy: VoiceSettings = { model: 'svc-tts-mini-0.8', voice: 'Luna' }

describe('voiceFitsModel', () => {
  it('takes each generation’s own ids and saved voices on the second generation only', () => {
    expect(voiceFitsModel('german_39', 'svc-tts-2-latest')).toBe(true)
    expect(voiceFitsModel('Bella', 'svc-tts-2-latest')).toBe(false)
    expect(voiceFitsModel('bella', 'svc-tts-nano-0.8')).toBe(false)
    expect(voiceFitsModel('Bella', 'svc-tts-nano-0.8')).toBe(true)
    expect(voiceFitsModel(SAVED, 'svc-tts-2-latest')).toBe(true)
    expect(voiceFitsModel(SAVED, 'svc-tts-mini-0.8')).toBe(false)
    expect(voiceFitsModel('voice_123', 'svc-tts-2-latest')).toBe(false)
  })
})

describe('effectiveSettings', () => {
  const script: VoiceSettings = { ...second, speed: 1.2, mode: 'stable', temperature: 1.1 }

  it('is the script’s settings when the line has no override', () => {
    expect(effectiveSettings(script)).toEqual(script)
    expect(effectiveSettings(script, {})).toEqual(script)
  })

  it('lets every field the override gives replace the script’s and keeps the rest', () => {
    const line = effectiveSettings(script, { voice: 'german_39', temperature: 0.4, top_k: 0 })
    expect(line).toEqual({ ...script, voice: 'german_39', temperature: 0.4, top_k: 0 })
  })

  it('treats an override field set to undefined as not given', () => {
    expect(effectiveSettings(script, { speed: undefined, temperature: undefined })).toEqual(script)
  })

  it('keeps the script voice when an overridden model has it, else takes that model’s default', () => {
    expect(effectiveSettings(legacy, { model: 'svc-tts-nano-0.8' })).toMatchObject({
      model: 'svc-tts-nano-0.8',
      voice: 'Luna',
    })
    expect(effectiveSettings(script, { model: 'svc-tts-micro-0.8' }).voice).toBe('Bella')
    expect(effectiveSettings(legacy, { model: 'svc-tts-2-latest' }).voice).toBe('eleanor_somber_female_32')
  })

  it('falls back from an override voice of the other generation to the script voice, then the default', () => {
    expect(effectiveSettings(script, { voice: 'Hugo' }).voice).toBe('eleanor_somber_female_32')
    expect(effectiveSettings(script, { model: 'svc-tts-nano-0.8', voice: 'german_39' }).voice).toBe('Bella')
    expect(effectiveSettings(legacy, { model: 'svc-tts-nano-0.8', voice: 'Kiki' }).voice).toBe('Kiki')
  })

  it('keeps a saved voice on the second generation only', () => {
    expect(effectiveSettings(second, { voice: SAVED }).voice).toBe(SAVED)
    expect(effectiveSettings({ ...second, voice: SAVED }, { model: 'svc-tts-mini-0.8' }).voice).toBe('Bella')
  })
})

describe('toSpeechRequest', () => {
  it('leaves every field the user did not set out of the request, preset values included', () => {
    const request = toSpeechRequest(second, 'Hello there.')
    expect(request).toEqual({
      model: 'svc-tts-2-latest',
      voice: 'eleanor_somber_female_32',
      input: 'Hello there.',
    })
    expect(Object.keys(request).sort()).toEqual(['input', 'model', 'voice'])
  })

  it('sends mode and decoding fields as set on the second generation, zeros included', () => {
    const request = toSpeechRequest(
      { ...second, speed: 0.75, mode: 'stable', temperature: 1.3, top_k: 0, min_p: 0, max_new_tokens: 800 },
      'Line.',
    )
    expect(request).toEqual({
      model: 'svc-tts-2-latest',
      voice: 'eleanor_somber_female_32',
      input: 'Line.',
      speed: 0.75,
      mode: 'stable',
      temperature: 1.3,
      top_k: 0,
      min_p: 0,
      max_new_tokens: 800,
    })
    expect('top_p' in request).toBe(false)
  })

  it('drops mode and decoding fields for every 0.8 model, which ignore them, and keeps speed', () => {
    for (const model of LEGACY_MODELS) {
      const request = toSpeechRequest(
        {
          model,
          voice: 'Rosie',
          speed: 1.5,
          mode: 'expressive',
          temperature: 1.9,
          top_p: 0.6,
          max_new_tokens: 600,
        },
        'Hi.',
      )
      expect(request).toEqual({ model, voice: 'Rosie', input: 'Hi.', speed: 1.5 })
    }
  })

  it('sends a saved voice as an object with its id', () => {
    expect(toSpeechRequest({ ...second, voice: SAVED }, 'Hi.').voice).toEqual({ id: SAVED })
  })

  it('makes requests the speech schema accepts unchanged, every field at both ends of its range', () => {
    const low: VoiceSettings = {
      ...second,
      speed: 0.25,
      mode: 'stable',
      temperature: 0.3,
      top_p: 0.5,
      top_k: 0,
      min_p: 0,
      max_new_tokens: 500,
    }
    const high: VoiceSettings = {
      model: 'svc-tts-2-latest',
      voice: SAVED,
      speed: 4,
      mode: 'expressive',
      temperature: 2,
      top_p: 1,
      top_k: 200,
      min_p: 0.5,
      max_new_tokens: 12_000,
    }
    for (const settings of [low, high, second, legacy]) {
      const request = toSpeechRequest(voiceSettingsSchema.parse(settings), 'Every field.')
      expect(speechRequestSchema.parse(request)).toEqual(request)
    }
  })
})

describe('presetValue', () => {
  it('gives the mode’s preset, expressive when no mode is set, and nothing for max_new_tokens', () => {
    expect(presetValue('stable', 'temperature')).toBe(0.8)
    expect(presetValue(undefined, 'temperature')).toBe(0.9)
    expect(presetValue('expressive', 'top_p')).toBe(0.9)
    expect(presetValue(undefined, 'top_k')).toBe(50)
    expect(presetValue('stable', 'min_p')).toBe(0)
    expect(presetValue('stable', 'max_new_tokens')).toBeUndefined()
  })

  it('describes a preset in the order of the contract’s table', () => {
    expect(describePreset('expressive')).toBe('temperature 0.9 · top_p 0.9 · top_k 50 · min_p 0')
    expect(describePreset('stable')).toBe('temperature 0.8 · top_p 0.8 · top_k 50 · min_p 0')
  })
})

describe('describeSettings', () => {
  it('summarizes the model, voice, mode and the custom decoding fields', () => {
    expect(describeSettings({ ...second, temperature: 1.1 })).toBe(
      'svc-tts-2-latest · eleanor_somber_female_32 · expressive · temp 1.1 (custom)',
    )
    expect(describeSettings({ ...second, mode: 'stable', speed: 1.25, top_k: 0, max_new_tokens: 900 })).toBe(
      'svc-tts-2-latest · eleanor_somber_female_32 · speed 1.25× · stable · top_k 0, max_new_tokens 900 (custom)',
    )
    expect(describeSettings(second)).toBe('svc-tts-2-latest · eleanor_somber_female_32 · expressive')
  })

  it('names a saved voice and leaves out what a 0.8 model ignores', () => {
    expect(describeSettings({ ...second, voice: SAVED }, [{ id: SAVED, name: 'Ada' }])).toBe(
      'svc-tts-2-latest · Ada (saved) · expressive',
    )
    expect(describeSettings({ ...legacy, mode: 'stable', temperature: 1.4 })).toBe('svc-tts-mini-0.8 · Luna')
  })
})

describe('compactOverride and sameSettings', () => {
  it('drops unset fields and gives undefined for an override that sets nothing', () => {
    expect(compactOverride({ speed: undefined, top_k: 0 })).toEqual({ top_k: 0 })
    expect(compactOverride({ speed: undefined })).toBeUndefined()
    expect(compactOverride(undefined)).toBeUndefined()
  })

  it('compares field by field, an absent field and an undefined one alike', () => {
    const parsed: LineOverride = lineOverrideSchema.parse({ temperature: null, top_k: 5 })
    expect(sameSettings(parsed, { top_k: 5 })).toBe(true)
    expect(sameSettings({ top_k: 5 }, { top_k: 6 })).toBe(false)
    expect(sameSettings({ min_p: 0 }, {})).toBe(false)
    expect(sameSettings(undefined, {})).toBe(true)
  })
})

describe('resolveLine', () => {
  const script = {
    settings: { ...second, speed: 1.2, mode: 'stable' as const },
    cast: [
      { name: 'Alice', settings: { voice: 'captain_01', speed: 0.9 } },
      { name: 'Bob', settings: { model: 'svc-tts-mini-0.8' as const, voice: 'Jasper' } },
      { name: 'Cleo', settings: { temperature: 1.3 } },
    ],
  }

  it('gives a cast member’s line their settings over the script’s, and sends it without the prefix', () => {
    expect(resolveLine(script, { text: 'ALICE: Hello.' })).toEqual({
      speaker: 'Alice',
      settings: { ...second, voice: 'captain_01', speed: 0.9, mode: 'stable' },
      input: 'Hello.',
    })
    // A member's other model brings its voice; what they leave unset stays the script's.
    expect(resolveLine(script, { text: 'Bob: Hi.' }).settings).toEqual({
      model: 'svc-tts-mini-0.8',
      voice: 'Jasper',
      speed: 1.2,
      mode: 'stable',
    })
    // A member with no voice of their own speaks in the script's.
    expect(resolveLine(script, { text: 'Cleo: Hi.' }).settings.voice).toBe(second.voice)
  })

  it('puts the line’s own override over its cast member’s settings', () => {
    const line = { text: 'Alice: Hello.', override: { speed: 1.5, voice: 'robot_03' } }
    expect(resolveLine(script, line).settings).toMatchObject({
      voice: 'robot_03',
      speed: 1.5,
      mode: 'stable',
    })
    // An override of the model alone: the member's voice where that model has it, else its default.
    expect(
      resolveLine(script, { text: 'Alice: Hi.', override: { model: 'svc-tts-nano-0.8' } }).settings,
    ).toEqual({ model: 'svc-tts-nano-0.8', voice: 'Bella', speed: 0.9, mode: 'stable' })
  })

  it('leaves lines of no cast member to the script, spoken as written', () => {
    expect(resolveLine(script, { text: 'Note: this is prose.' })).toEqual({
      speaker: null,
      settings: script.settings,
      input: 'Note: this is prose.',
    })
    expect(resolveLine({ settings: second }, { text: 'Alice: Hello.' })).toEqual({
      speaker: null,
      settings: second,
      input: 'Alice: Hello.',
    })
  })

  it('plays a selection in the whole line’s speaker, without the prefix when it starts with it', () => {
    const line = { text: 'Alice: Hello there.' }
    expect(resolveLine(script, line, 'there.')).toMatchObject({ speaker: 'Alice', input: 'there.' })
    expect(resolveLine(script, line, 'Alice: Hello')).toMatchObject({ speaker: 'Alice', input: 'Hello' })
  })
})
