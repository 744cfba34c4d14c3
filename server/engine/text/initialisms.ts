/**
 * Words in capitals. The rule: a run of 2–5 capitals is an initialism and is spelled ("FBI" → "F B I", "CEOs" →
 * "C E O's") unless it is a known acronym said as a word (NASA) or an ordinary word written in capitals for emphasis
 * ("please STOP"). A sentence shouted in capitals is left alone, and so are longer capitalized words: eSpeak reads
 * both as words. Roman numerals after a name are read as numbers.
 */
import { cardinal, ordinal } from './numbers.ts'

const SAID_AS_WORDS = new Set([
  'NASA',
  'NATO',
  'OPEC',
  'FIFA',
  'NAFTA',
  'AIDS',
  'COVID',
  'SARS',
  'SWAT',
  'FEMA',
  'OSHA',
  'IKEA',
  'LEGO',
  'ASCII',
  'GIF',
  'JPEG',
  'PIN',
  'RAM',
  'ROM',
  'SIM',
  'ZIP',
  'LASER',
  'RADAR',
  'SCUBA',
  'YOLO',
  'FOMO',
  'POTUS',
  'DARPA',
  'NIMBY',
  'AWOL',
])

/** Common words that turn up in capitals; also the sign that a whole sentence is shouted. */
const COMMON_WORDS = new Set(
  (
    'A AM AN AND ARE AT BE BIG BUT BY CAN DID DO GET GO GOT HAVE HE HELP HEY HOW I IF IN IS JUST LOVE ME MORE ' +
    'MUST MY NEVER NO NOT NOW OF ON ONLY OR OUR OUT REAL SAID SHE SO STOP THAT THE THEY THIS TO UP VERY WAS WE ' +
    'WHAT WHY WILL WITH WOW YES YOU YOUR'
  ).split(' '),
)

/** "OK" is an initialism by shape but has a word of its own. */
const SPOKEN_FORMS: Record<string, string> = { OK: 'okay' }

/** After these a numeral counts ("World War II" → "two"); after other names it is regnal ("Henry VIII" → "the eighth"). */
const COUNTED = new Set([
  'War',
  'Part',
  'Chapter',
  'Volume',
  'Act',
  'Phase',
  'Type',
  'Book',
  'Season',
  'Episode',
  'Level',
])
const ROMAN_VALUES: Record<string, number> = { I: 1, V: 5, X: 10 }
const validRoman = /^X{0,3}(?:IX|IV|V?I{0,3})$/
const romanAfterName = /(?<=(\p{Lu}\p{Ll}+) )([IVX]{2,})(?![\p{L}\d])/gu

function romanValue(numeral: string): number {
  let total = 0
  for (let i = 0; i < numeral.length; i++) {
    const value = ROMAN_VALUES[numeral.charAt(i)] ?? 0
    const next = ROMAN_VALUES[numeral.charAt(i + 1)] ?? 0
    total += value < next ? -value : value
  }
  return total
}

const capsRun = /(?<![\p{L}\d'])([A-Z]{2,5})(s?)(?!\p{L})/gu
const words = /\p{L}[\p{L}']*/gu

/** Shouted: at least three words in capitals, most of the sentence, and at least one of them an everyday word. */
function isShouted(sentence: string): boolean {
  const all = sentence.match(words) ?? []
  const caps = all.filter((w) => w.length > 1 && w === w.toUpperCase() && w !== w.toLowerCase())
  return caps.length >= 3 && caps.length * 5 >= all.length * 3 && caps.some((w) => COMMON_WORDS.has(w))
}

function spell(sentence: string): string {
  return sentence.replace(capsRun, (match, letters: string, plural: string) => {
    const spoken = SPOKEN_FORMS[letters]
    if (spoken) return spoken + plural
    if (SAID_AS_WORDS.has(letters) || COMMON_WORDS.has(letters)) return match
    const spelled = letters.split('').join(' ')
    return plural ? `${spelled}'s` : spelled
  })
}

export function expandInitialisms(text: string): string {
  return text
    .replace(romanAfterName, (match, name: string, numeral: string) => {
      if (!validRoman.test(numeral)) return match
      const value = romanValue(numeral)
      return COUNTED.has(name) ? cardinal(value) : `the ${ordinal(value)}`
    })
    .replace(/[^.!?\n]+/g, (sentence) => (isShouted(sentence) ? sentence : spell(sentence)))
}
