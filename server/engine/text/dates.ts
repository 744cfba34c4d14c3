/** Dates ("2024-03-05", "03/05/2024" as US month/day, "March 5, 2024", "5 March 2024") and clock times. */
import { cardinal, ordinal, year } from './numbers.ts'

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const MONTH =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)'
const DAY_SUFFIX = '(?:st|nd|rd|th)?'

const monthByPrefix = (name: string) => MONTHS.find((m) => m.startsWith(name.slice(0, 3))) ?? name

/** A month number and day that exist on some calendar; anything else is left to the number rules. */
const validDate = (month: number, day: number) => month >= 1 && month <= 12 && day >= 1 && day <= 31

const monthDayYear = (month: string, day: number, y?: string) =>
  `${month} ${ordinal(day)}${y ? `, ${year(Number(y))}` : ''}`

/** Two-digit years are taken as the nearest: "24" → 2024, "99" → 1999. */
const fullYear = (y: string) =>
  y.length === 2 ? String(Number(y) < 50 ? 2000 + Number(y) : 1900 + Number(y)) : y

const iso = /(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])/g
const usNumeric = /(?<![\d/.-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/-])/g
// The period after an abbreviated month is only swallowed before the day ("Jan. 5"), never at a sentence end.
const monthFirst = new RegExp(
  String.raw`(?<!\p{L})${MONTH}\.?\s(\d{1,2})${DAY_SUFFIX}(?:,?\s(\d{4}))?(?![\p{L}\d:])`,
  'gu',
)
const dayFirst = new RegExp(
  String.raw`(?<![\p{L}\d.,])([Tt]he\s)?(\d{1,2})${DAY_SUFFIX}\s(?:of\s)?${MONTH}(?!\p{L})(?:,?\s(\d{4})(?!\d))?`,
  'gu',
)
const monthYear = new RegExp(String.raw`(?<!\p{L})${MONTH}\.?\s(\d{4})(?!\d)`, 'gu')

export function expandDates(text: string): string {
  return text
    .replace(iso, (match, y: string, m: string, d: string) =>
      validDate(Number(m), Number(d)) ? monthDayYear(MONTHS[Number(m) - 1] ?? m, Number(d), y) : match,
    )
    .replace(usNumeric, (match, m: string, _sep, d: string, y: string) =>
      validDate(Number(m), Number(d))
        ? monthDayYear(MONTHS[Number(m) - 1] ?? m, Number(d), fullYear(y))
        : match,
    )
    .replace(monthFirst, (match, month: string, d: string, y?: string) =>
      validDate(1, Number(d)) ? monthDayYear(monthByPrefix(month), Number(d), y) : match,
    )
    .replace(dayFirst, (match, the: string | undefined, d: string, month: string, y?: string) =>
      validDate(1, Number(d))
        ? `${the ?? 'the '}${ordinal(Number(d))} of ${monthByPrefix(month)}${y ? `, ${year(Number(y))}` : ''}`
        : match,
    )
    .replace(monthYear, (_, month: string, y: string) => `${monthByPrefix(month)} ${year(Number(y))}`)
}

// "a.m." rather than "a m": eSpeak reads a lone "a" as the article.
const MERIDIEM = String.raw`([ap])\.?m\b\.?`
const clock = new RegExp(
  String.raw`(?<![\d:.])(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s?${MERIDIEM})?(?![\d:])`,
  'gi',
)
const hourOnly = new RegExp(String.raw`(?<![\d:.,])(\d{1,2})\s?${MERIDIEM}`, 'gi')

function readTime(h: number, m: number, s: number, meridiem?: string): string {
  let minutes = ''
  if (m > 0) minutes = m < 10 ? ` oh ${cardinal(m)}` : ` ${cardinal(m)}`
  else if (!meridiem) minutes = h === 0 || h > 12 ? ' hundred' : " o'clock"
  const seconds = s > 0 ? ` and ${cardinal(s)} ${s === 1 ? 'second' : 'seconds'}` : ''
  const suffix = meridiem ? ` ${meridiem.toLowerCase()}.m.` : ''
  return cardinal(h) + minutes + seconds + suffix
}

const validTime = (h: number, m: number, s: number, meridiem?: string) =>
  (meridiem ? h >= 1 && h <= 12 : h <= 23) && m <= 59 && s <= 59

export function expandTimes(text: string): string {
  return text
    .replace(clock, (match, h: string, m: string, s: string | undefined, meridiem?: string) =>
      validTime(Number(h), Number(m), Number(s ?? 0), meridiem)
        ? readTime(Number(h), Number(m), Number(s ?? 0), meridiem)
        : match,
    )
    .replace(hourOnly, (match, h: string, meridiem: string) =>
      validTime(Number(h), 0, 0, meridiem) ? readTime(Number(h), 0, 0, meridiem) : match,
    )
}
