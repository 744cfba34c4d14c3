import { describe, expect, it } from 'vitest'
import { ipaToEspeak } from '../espeak/ipa.ts'
import { spaceAfterPhonemes } from '../espeak/text.ts'
import { normalizeText } from './normalize.ts'

const en = (text: string) => normalizeText(text, { voiceLanguage: 'en-US' })

describe('IPA to eSpeak mnemonics', () => {
  it('maps English IPA, long vowels and diphthongs as one phoneme, stress where IPA puts it', () => {
    expect(ipaToEspeak('təˈmɑːtoʊ')).toBe("t@'mA:toU")
    expect(ipaToEspeak('ˌeɪtiːənˈtiː')).toBe(",eIti:@n'ti:")
    expect(ipaToEspeak('ðə θɪŋ')).toBe('D@ TIN')
    expect(ipaToEspeak('dʒ t͡ʃ ʒ ʃ')).toBe('dZ tS Z S')
  })

  it('drops syllable dots, slashes and diacritics it has no phoneme for', () => {
    expect(ipaToEspeak('/hɛ.ˈloʊ/')).toBe("hE'loU")
    expect(ipaToEspeak('rɛz̩ peɪdʒ')).toBe('rEz peIdZ')
    expect(ipaToEspeak('۝')).toBe('')
  })
})

describe('the phoneme form through normalization', () => {
  it('becomes eSpeak phoneme input that expansion leaves alone', () => {
    expect(en('Say [[wɜːld]] 3 times.')).toBe('Say [[w3:ld]] three times.')
    expect(en('[[ɒn]]')).toBe('[[0n]]')
  })

  it('keeps markup around it working', () => {
    expect(en('[sad] A (((big [[təˈmɑːtoʊ]]))) <laugh>')).toBe("[sad] A (((big [[t@'mA:toU]] ))) <laugh>")
  })

  it('leaves text without the form as it was, and a span with no phoneme goes', () => {
    expect(en('[[]] and [x] stay; 2 [[۝]] go')).toBe('[[]] and [x] stay; two go')
  })

  it('puts a space between a span and the SSML that follows it', () => {
    expect(spaceAfterPhonemes("<prosody rate='90%'>[[t@'mA:toU]]</prosody>")).toBe(
      "<prosody rate='90%'>[[t@'mA:toU]] </prosody>",
    )
  })
})
