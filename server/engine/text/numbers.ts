/** English number words: cardinals, ordinals, years, decimals, fractions and digit-by-digit readings. */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
]
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion']

/** Past the trillions a reading stops being useful; such digit strings are IDs and are read digit by digit. */
const MAX_CARDINAL = 10 ** 15
const MAX_CARDINAL_DIGITS = 15
/** A run read one digit at a time is grouped from this length on: past seven digits a listener loses count. */
const GROUP_FROM = 8
/** Digits per group, as card, account and IBAN numbers are printed. */
const GROUP_SIZE = 4

function underHundred(n: number): string {
  if (n < 20) return ONES[n] ?? ''
  const tens = TENS[Math.floor(n / 10)] ?? ''
  return n % 10 === 0 ? tens : `${tens}-${ONES[n % 10]}`
}

function underThousand(n: number): string {
  const hundreds = Math.floor(n / 100)
  const rest = n % 100
  if (hundreds === 0) return underHundred(rest)
  return rest === 0 ? `${ONES[hundreds]} hundred` : `${ONES[hundreds]} hundred ${underHundred(rest)}`
}

/** A whole number in words, American style (no "and"): 1234 → "one thousand two hundred thirty-four". */
export function cardinal(n: number): string {
  if (n < 0) return `minus ${cardinal(-n)}`
  // Callers with digit strings use wholeNumber, which never loses digits; a float here is read as far as it is known.
  if (!Number.isSafeInteger(n) || n >= MAX_CARDINAL) {
    return Number.isFinite(n) ? digitRun(BigInt(Math.trunc(n)).toString()) : 'infinity'
  }
  if (n === 0) return 'zero'
  const words: string[] = []
  for (let scale = SCALES.length - 1; scale >= 0; scale--) {
    const group = Math.floor(n / 1000 ** scale) % 1000
    if (group > 0) words.push(scale === 0 ? underThousand(group) : `${underThousand(group)} ${SCALES[scale]}`)
  }
  return words.join(' ')
}

const IRREGULAR_ORDINALS: Record<string, string> = {
  one: 'first',
  two: 'second',
  three: 'third',
  five: 'fifth',
  eight: 'eighth',
  nine: 'ninth',
  twelve: 'twelfth',
}

/** Turns the last word of a number reading into its ordinal: "twenty-one" → "twenty-first". */
function ordinalize(words: string): string {
  const match = /^(.*?)([a-z]+)$/.exec(words)
  if (!match) return words
  const [, head = '', last = ''] = match
  const ordinal = IRREGULAR_ORDINALS[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`)
  return head + ordinal
}

export function ordinal(n: number): string {
  return ordinalize(cardinal(n))
}

/** Years are read in pairs (1999 → "nineteen ninety-nine") except 2000–2009 and round thousands. */
export function year(n: number): string {
  if (n < 1000 || n > 9999 || n % 1000 < 10) return cardinal(n)
  const high = Math.floor(n / 100)
  const low = n % 100
  if (low === 0) return `${cardinal(high)} hundred`
  return low < 10 ? `${cardinal(high)} oh ${ONES[low]}` : `${cardinal(high)} ${underHundred(low)}`
}

/** Plural of a number reading, as in decades: "nineteen ninety" → "nineteen nineties". */
export function pluralize(words: string): string {
  return words.endsWith('y') ? `${words.slice(0, -1)}ies` : `${words}s`
}

export function digits(s: string): string {
  return [...s]
    .filter((c) => c >= '0' && c <= '9')
    .map((c) => ONES[Number(c)])
    .join(' ')
}

/**
 * A run of digits cut as it is read: from eight digits on in groups of four, the last two groups made three and two
 * rather than leave one digit alone.
 */
function digitGroups(ds: string): string[] {
  if (ds.length < GROUP_FROM) return [ds]
  const groups: string[] = []
  for (let i = 0; i < ds.length; i += GROUP_SIZE) groups.push(ds.slice(i, i + GROUP_SIZE))
  const last = groups.at(-1) ?? ''
  if (last.length === 1) {
    const before = groups.at(-2) ?? ''
    groups.splice(-2, 2, before.slice(0, 3), before.slice(3) + last)
  }
  return groups
}

/**
 * Digits read one at a time, the groups apart by a short pause (a comma): "123456789" → "one two three four, five six
 * seven, eight nine".
 */
export function digitRun(run: string): string {
  return digitGroups(run.replace(/\D/g, '')).map(digits).join(', ')
}

const longRun = new RegExp(String.raw`\d{${MAX_CARDINAL_DIGITS + 1},}`, 'g')

/**
 * Text that gets no English expansion (contract 2.9 rule 2) still has its long digit runs cut into single digits in
 * the same groups: the engine's own number rules give up partway through such a run (measured: a German voice spoke
 * about 12 s of a 200-digit run and dropped the rest), while a digit alone it reads in the voice's language.
 */
export function spaceDigitRuns(text: string): string {
  return text.replace(longRun, (run) =>
    digitGroups(run)
      .map((g) => [...g].join(' '))
      .join(', '),
  )
}

/**
 * A whole number written as plain digits, never through a lossy float: a leading zero makes it a code, and past the
 * trillions it is an ID (an account or card number); both are read digit by digit.
 */
export function wholeNumber(ds: string): string {
  if (/^0\d/.test(ds) || ds.length > MAX_CARDINAL_DIGITS) return digitRun(ds)
  return cardinal(Number(ds))
}

/**
 * A written number such as "1,234", "007", "3.14" or ".5". Integers with a leading zero are codes and read digit by
 * digit; the digits after a decimal point are always read one by one. A number too long for words keeps the groups its
 * writer put commas between.
 */
export function readNumber(raw: string): string {
  const [written = '', fraction] = raw.split('.')
  const whole = written.replace(/,/g, '')
  let wholeWords = ''
  if (whole.length > MAX_CARDINAL_DIGITS && written.includes(',')) {
    wholeWords = written.split(',').map(digits).join(', ')
  } else if (whole !== '') wholeWords = wholeNumber(whole)
  if (fraction === undefined || fraction === '') return wholeWords
  return `${wholeWords === '' ? '' : `${wholeWords} `}point ${digitRun(fraction)}`
}

/** Whether a written number is exactly "1", which takes a singular unit name ("1 km" but "1.0 km", "0.5 km"). */
export function isOne(raw: string): boolean {
  return raw === '1'
}

/**
 * A written number as the other rules match it: "1,234", "1234", "3.14", ".5". Group commas must come in threes so
 * that a list like "1,2,3" stays three numbers.
 */
export const NUMBER = String.raw`(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)`

/** A signed number; "-5" reads "minus five". */
export function readSigned(raw: string): string {
  return raw.startsWith('-') ? `minus ${readNumber(raw.slice(1))}` : readNumber(raw)
}

/** 3/4 → "three quarters"; 1/2 → "one half". */
export function fraction(numerator: number, denominator: number): string {
  const one = numerator === 1
  let name: string
  if (denominator === 2) name = one ? 'half' : 'halves'
  else if (denominator === 4) name = one ? 'quarter' : 'quarters'
  else name = one ? ordinal(denominator) : pluralize(ordinal(denominator))
  return `${cardinal(numerator)} ${name}`
}
