/** Amounts of money: "$3.50" → "three dollars and fifty cents", "EUR 5" → "five euros", "$2.5M" → "two point five million dollars". */
import { cardinal, isOne, NUMBER, readNumber, wholeNumber } from './numbers.ts'

interface Currency {
  one: string
  many: string
  /** Names of the hundredth; currencies without one read decimals as "point …". */
  cent?: readonly [one: string, many: string]
}

const CENTS = ['cent', 'cents'] as const
const DOLLAR: Currency = { one: 'dollar', many: 'dollars', cent: CENTS }
const EURO: Currency = { one: 'euro', many: 'euros', cent: CENTS }
const POUND: Currency = { one: 'pound', many: 'pounds', cent: ['penny', 'pence'] }
const YEN: Currency = { one: 'yen', many: 'yen' }
const RUPEE: Currency = { one: 'rupee', many: 'rupees', cent: ['paisa', 'paise'] }

const SYMBOLS: Record<string, Currency> = { $: DOLLAR, '€': EURO, '£': POUND, '¥': YEN, '₹': RUPEE }

const CODES: Record<string, Currency> = {
  USD: { one: 'US dollar', many: 'US dollars', cent: CENTS },
  EUR: EURO,
  GBP: POUND,
  JPY: YEN,
  INR: RUPEE,
  CAD: { one: 'Canadian dollar', many: 'Canadian dollars', cent: CENTS },
  AUD: { one: 'Australian dollar', many: 'Australian dollars', cent: CENTS },
  CHF: { one: 'Swiss franc', many: 'Swiss francs', cent: ['centime', 'centimes'] },
  CNY: { one: 'yuan', many: 'yuan' },
}

/** "$5k", "$2.5M", "£3bn", "$4 million": the scale comes before the currency name when spoken. */
const SCALES: Record<string, string> = {
  k: 'thousand',
  K: 'thousand',
  m: 'million',
  M: 'million',
  mn: 'million',
  bn: 'billion',
  B: 'billion',
  thousand: 'thousand',
  million: 'million',
  billion: 'billion',
  trillion: 'trillion',
}

const SYMBOL = '[$€£¥₹]'
const CODE = `(?:${Object.keys(CODES).join('|')})`
const SCALE = String.raw`(?:\s(thousand|million|billion|trillion)|(k|K|m|M|mn|bn|B))?`
const END = String.raw`(?![\p{L}\d])`

const symbolFirst = new RegExp(String.raw`(?<![\p{L}\d])(-)?(${SYMBOL})\s?(${NUMBER})${SCALE}${END}`, 'gu')
const symbolAfter = new RegExp(String.raw`(?<![\p{L}\d.,])(-)?(${NUMBER})\s?(${SYMBOL})`, 'gu')
const codeFirst = new RegExp(String.raw`(?<![\p{L}\d])(${CODE})\s?(-)?(${NUMBER})${SCALE}${END}`, 'gu')
const codeAfter = new RegExp(String.raw`(?<![\p{L}\d.,])(-)?(${NUMBER})${SCALE}\s?(${CODE})${END}`, 'gu')

function spokenAmount(minus: string | undefined, amount: string, currency: Currency, scale?: string): string {
  const sign = minus ? 'minus ' : ''
  const scaleWord = scale ? SCALES[scale] : undefined
  if (scaleWord) return `${sign}${readNumber(amount)} ${scaleWord} ${currency.many}`
  const [whole = '', decimals = ''] = amount.replace(/,/g, '').split('.')
  if (decimals.length === 2 && currency.cent) {
    const units = Number(whole)
    const cents = Number(decimals)
    const unitPart = `${wholeNumber(whole)} ${units === 1 ? currency.one : currency.many}`
    const centPart = `${cardinal(cents)} ${cents === 1 ? currency.cent[0] : currency.cent[1]}`
    if (cents === 0) return sign + unitPart
    if (units === 0) return sign + centPart
    return `${sign}${unitPart} and ${centPart}`
  }
  return `${sign}${readNumber(amount)} ${isOne(amount) ? currency.one : currency.many}`
}

export function expandMoney(text: string): string {
  return text
    .replace(symbolFirst, (match, minus, symbol: string, amount: string, word, letter) => {
      const currency = SYMBOLS[symbol]
      return currency ? spokenAmount(minus, amount, currency, word ?? letter) : match
    })
    .replace(codeFirst, (match, code: string, minus, amount: string, word, letter) => {
      const currency = CODES[code]
      return currency ? spokenAmount(minus, amount, currency, word ?? letter) : match
    })
    .replace(codeAfter, (match, minus, amount: string, word, letter, code: string) => {
      const currency = CODES[code]
      return currency ? spokenAmount(minus, amount, currency, word ?? letter) : match
    })
    .replace(symbolAfter, (match, minus, amount: string, symbol: string) => {
      const currency = SYMBOLS[symbol]
      return currency ? spokenAmount(minus, amount, currency) : match
    })
}
