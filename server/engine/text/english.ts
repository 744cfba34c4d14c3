/** English written-to-spoken expansion (contract 2.9 rule 1), applied to text free of markup. */
import { expandAbbreviations } from './abbreviations.ts'
import { expandDates, expandTimes } from './dates.ts'
import { expandInitialisms } from './initialisms.ts'
import { expandMoney } from './money.ts'
import {
  cardinal,
  digitRun,
  digits,
  fraction,
  NUMBER,
  ordinal,
  pluralize,
  readNumber,
  year,
} from './numbers.ts'
import { expandUnits } from './units.ts'

const PHONE_SHAPES = [
  String.raw`\+\d{1,3}(?:[ .-]\(?\d{1,4}\)?){2,5}`, // +44 20 7946 0958, +1 (555) 123-4567
  String.raw`\(\d{3}\) ?\d{3}[ .-]\d{4}`, // (555) 123-4567
  String.raw`\d{3}([.-])\d{3}\1\d{4}`, // 555-123-4567, 555.123.4567
  String.raw`[2-9]\d{2}-\d{4}`, // 555-1234; "200-1000" (both round) is a range instead
]
const phone = new RegExp(String.raw`(?<![\w+.-])(?:${PHONE_SHAPES.join('|')})(?![\w-])`, 'g')

/** Digit groups are read one digit at a time, with a short pause between groups. */
function readPhone(match: string): string {
  // "200-1000": two round numbers are a range, not a seven-digit number.
  if (/^\d+-\d+$/.test(match) && /0-.*0$/.test(match)) return match
  const groups = match.match(/\d+/g) ?? []
  return (match.startsWith('+') ? 'plus ' : '') + groups.map(digits).join(', ')
}

/**
 * Digits written in groups, as card, account and ID numbers are: "4111 1111 1111 1111", "123-45-6789", "0800 123456".
 * Each group is read digit by digit and the writer's separators become short pauses. Lists of small numbers, ranges
 * ("1234-5678" is two numbers), years ("1990 1995 2000") and thousands written with spaces ("100 000") stay numbers.
 */
const digitGroupsRe = /(?<![\p{L}\d.,+-])\d{1,8}([ -])\d{1,8}(?:\1\d{1,8})*(?![\p{L}\d]|[.,-]\d)/gu
const yearShaped = /^(?:1[1-9]|20)\d\d$/

function readDigitGroups(match: string, separator: string): string {
  const groups = match.split(separator)
  const count = groups.join('').length
  const enough = groups.length >= 3 ? count >= 8 : separator === ' ' && count >= 10
  if (!enough || !groups.some((g) => g.length >= 4) || groups.every((g) => yearShaped.test(g))) return match
  return groups.map(digitRun).join(', ')
}

// Ordinals past the trillions are IDs with a suffix; they are left to the number rule.
const ordinalRe = /(?<![\d.])(\d{1,3}(?:,\d{3}){1,4}|\d{1,15})(?:st|nd|rd|th)(?![\p{L}\d])/gu
const decade = /(?<![\d.,])'?(\d{1,3}0)s(?![\p{L}\d])/gu
const VULGAR: Record<string, string> = {
  '½': '1/2',
  '⅓': '1/3',
  '⅔': '2/3',
  '¼': '1/4',
  '¾': '3/4',
  '⅕': '1/5',
  '⅛': '1/8',
  '⅜': '3/8',
  '⅝': '5/8',
  '⅞': '7/8',
}
const vulgar = new RegExp(`(\\d)?\\s?([${Object.keys(VULGAR).join('')}])`, 'g')
const fractionRe = /(?<![\d/.,])(?:(\d{1,3}) )?(\d{1,3})\/(\d{1,3})(?![\d/])/g
const range = new RegExp(String.raw`(?<![\p{L}\d.,-])(${NUMBER})-(${NUMBER})(?![\d-])`, 'gu')
const negative = /(?<![\p{L}\d.,)-])-(?=\.?\d)/gu
// The second branch reads the tail of "1.2.3" after "1.2" has been taken.
const number = new RegExp(String.raw`(?:(?<!\d)${NUMBER}|\.\d+)(?!\d)`, 'g')
const wordChar = /[\p{L}\d]/u

/** Bare four-digit numbers from 1100 to 2099 are taken as years: "in 1999", "since 2010". */
function readBare(raw: string): string {
  return /^(?:1[1-9]|20)\d\d$/.test(raw) ? year(Number(raw)) : readNumber(raw)
}

/** Reads a fraction as one where that is the usual reading; "24/7", "50/50" and "9/11" are read as two numbers. */
function readFraction(whole: string | undefined, n: number, d: number): string {
  const isFraction =
    d >= 2 && ((n < d && (d <= 10 || [12, 16, 32, 64, 100].includes(d))) || (d <= 4 && n < 10))
  if (!isFraction) return `${whole ? `${cardinal(Number(whole))} ` : ''}${cardinal(n)} ${cardinal(d)}`
  if (!whole) return fraction(n, d)
  // "1 1/2" → "one and a half", "2 3/4" → "two and three quarters".
  const part = n === 1 ? fraction(n, d).replace(/^one /, 'a ') : fraction(n, d)
  return `${cardinal(Number(whole))} and ${part}`
}

function expandNumbers(text: string): string {
  return text
    .replace(phone, readPhone)
    .replace(digitGroupsRe, readDigitGroups)
    .replace(ordinalRe, (_, n: string) => ordinal(Number(n.replace(/,/g, ''))))
    .replace(decade, (_, n: string) => pluralize(n.length === 4 ? year(Number(n)) : cardinal(Number(n))))
    .replace(
      vulgar,
      (_, whole: string | undefined, glyph: string) => `${whole ? `${whole} ` : ''}${VULGAR[glyph]}`,
    )
    .replace(fractionRe, (_, whole: string | undefined, n: string, d: string) =>
      readFraction(whole, Number(n), Number(d)),
    )
    .replace(range, (_, from: string, to: string) => `${readBare(from)} to ${readBare(to)}`)
    .replace(negative, 'minus ')
    .replace(number, (raw: string, offset: number, whole: string) => {
      // Keep words apart when a number touches letters or digits: "MP3" → "MP three", "4K" → "four K".
      const before = wordChar.test(whole.charAt(offset - 1)) ? ' ' : ''
      const after = wordChar.test(whole.charAt(offset + raw.length)) ? ' ' : ''
      return before + readBare(raw) + after
    })
}

/** Order matters: each rule consumes the shapes the later, more general ones would misread. */
export function expandEnglish(text: string): string {
  const expanded = [
    expandAbbreviations,
    expandDates,
    expandTimes,
    expandMoney,
    expandUnits,
    expandInitialisms,
    expandNumbers,
  ].reduce((t, rule) => rule(t), text)
  return expanded.replace(/[ \t]{2,}/g, ' ')
}
