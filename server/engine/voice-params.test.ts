import { describe, expect, it } from 'vitest'
import { LEGACY_VOICES, SECOND_GEN_VOICES } from '../../schema/index.ts'
import { voiceParamsFor } from './voice-params.ts'

const catalog = [...SECOND_GEN_VOICES, ...LEGACY_VOICES]

describe('voiceParamsFor', () => {
  it('renders every catalog voice, each one differently', () => {
    expect(catalog).toHaveLength(55)
    const renderings = catalog.map(({ id }) => JSON.stringify(voiceParamsFor(id)))
    expect(renderings.every((r) => r !== undefined)).toBe(true)
    expect(new Set(renderings).size).toBe(55)
  })

  it('speaks each language voice in its own language', () => {
    const language = (id: string) => voiceParamsFor(id)?.espeakVoice.split('+')[0]
    expect(language('german_39')).toBe('de')
    expect(language('chinese_46')).toBe('cmn')
    expect(language('arabic_38')).toBe('ar')
    expect(language('hindi_47')).toBe('hi')
  })

  it('knows no other ids, including inherited property names and other casings', () => {
    for (const id of ['bella', 'toString', '__proto__', 'voice_0123', ''])
      expect(voiceParamsFor(id)).toBeUndefined()
  })
})
