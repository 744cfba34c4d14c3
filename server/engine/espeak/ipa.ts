/**
 * IPA to eSpeak NG's phoneme mnemonics for its English voices: the local service's phoneme form `[[IPA]]`
 * (docs/markup.md) reaches eSpeak as `[[mnemonics]]`, which it speaks as phonemes instead of reading the word.
 * Longest symbols first, so a diphthong or a long vowel is one phoneme. Symbols English has no phoneme for take the
 * nearest one; marks that carry nothing here (syllable dots, tie bars, syllabic and other diacritics) are dropped.
 */
const SYMBOLS: ReadonlyArray<readonly [string, string]> = [
  // Diphthongs and long vowels.
  ['eɪ', 'eI'],
  ['aɪ', 'aI'],
  ['ɑɪ', 'aI'],
  ['ɔɪ', 'OI'],
  ['oʊ', 'oU'],
  ['əʊ', 'oU'],
  ['aʊ', 'aU'],
  ['ɪə', 'i@'],
  ['ɪɹ', 'i@r'],
  ['eə', 'e@'],
  ['ɛə', 'e@'],
  ['ɛɹ', 'e@r'],
  ['ʊə', 'U@'],
  ['iː', 'i:'],
  ['uː', 'u:'],
  ['ɑː', 'A:'],
  ['ɔː', 'O:'],
  ['ɜː', '3:'],
  ['ɝː', '3:'],
  // Affricates.
  ['tʃ', 'tS'],
  ['t͡ʃ', 'tS'],
  ['dʒ', 'dZ'],
  ['d͡ʒ', 'dZ'],
  ['ʧ', 'tS'],
  ['ʤ', 'dZ'],
  // Short vowels.
  ['i', 'i'],
  ['ɪ', 'I'],
  ['e', 'e'],
  ['ɛ', 'E'],
  ['æ', 'a'],
  ['a', 'a'],
  ['ɑ', 'A:'],
  ['ɒ', '0'],
  ['ɔ', 'O:'],
  ['o', 'o'],
  ['ʊ', 'U'],
  ['u', 'u:'],
  ['ʌ', 'V'],
  ['ɜ', '3:'],
  ['ɝ', '3:'],
  ['ɚ', '3'],
  ['ə', '@'],
  ['ɐ', 'a#'],
  ['ɨ', 'I#'],
  ['y', 'y'],
  // Consonants.
  ['p', 'p'],
  ['b', 'b'],
  ['t', 't'],
  ['d', 'd'],
  ['k', 'k'],
  ['g', 'g'],
  ['ɡ', 'g'],
  ['f', 'f'],
  ['v', 'v'],
  ['θ', 'T'],
  ['ð', 'D'],
  ['s', 's'],
  ['z', 'z'],
  ['ʃ', 'S'],
  ['ʒ', 'Z'],
  ['h', 'h'],
  ['x', 'x'],
  ['m', 'm'],
  ['n', 'n'],
  ['ŋ', 'N'],
  ['l', 'l'],
  ['ɫ', 'l'],
  ['ɹ', 'r'],
  ['r', 'r'],
  ['ɾ', 't'],
  ['w', 'w'],
  ['j', 'j'],
  ['ʔ', '?'],
  // Stress and length.
  ['ˈ', "'"],
  ['ˌ', ','],
  ['ː', ':'],
  [' ', ' '],
]

const LONGEST = Math.max(...SYMBOLS.map(([ipa]) => ipa.length))
const TABLE = new Map(SYMBOLS)

/** The mnemonics of an IPA transcription (NFC or not); '' when nothing in it is a phoneme of the table. */
export function ipaToEspeak(ipa: string): string {
  const text = ipa.normalize('NFC').replace(/['’]/g, 'ˈ')
  let out = ''
  let i = 0
  while (i < text.length) {
    let matched = false
    for (let n = Math.min(LONGEST, text.length - i); n > 0; n--) {
      const mnemonic = TABLE.get(text.slice(i, i + n))
      if (mnemonic !== undefined) {
        out += mnemonic
        i += n
        matched = true
        break
      }
    }
    if (!matched) i++
  }
  return out.replace(/\s+/g, ' ').trim()
}
