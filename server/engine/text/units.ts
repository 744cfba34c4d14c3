/** Quantities with a unit or percent sign, written with or without a space: "5km", "3.5 GB", "20°C", "10-20%". */
import { isOne, NUMBER, readSigned } from './numbers.ts'

/**
 * Symbol → [singular, plural]. Case matters ("mb" is not "MB"). Symbols that are also common words or letters ("in",
 * "s", "t", "B") are left out: "5 in a row" must not become inches.
 */
const UNITS: Record<string, readonly [string, string]> = {
  '%': ['percent', 'percent'],
  '°C': ['degree Celsius', 'degrees Celsius'],
  '°F': ['degree Fahrenheit', 'degrees Fahrenheit'],
  '°': ['degree', 'degrees'],
  km: ['kilometer', 'kilometers'],
  m: ['meter', 'meters'],
  cm: ['centimeter', 'centimeters'],
  mm: ['millimeter', 'millimeters'],
  mi: ['mile', 'miles'],
  ft: ['foot', 'feet'],
  kg: ['kilogram', 'kilograms'],
  g: ['gram', 'grams'],
  mg: ['milligram', 'milligrams'],
  lb: ['pound', 'pounds'],
  lbs: ['pound', 'pounds'],
  oz: ['ounce', 'ounces'],
  L: ['liter', 'liters'],
  ml: ['milliliter', 'milliliters'],
  mL: ['milliliter', 'milliliters'],
  'km/h': ['kilometer per hour', 'kilometers per hour'],
  kph: ['kilometer per hour', 'kilometers per hour'],
  mph: ['mile per hour', 'miles per hour'],
  'm/s': ['meter per second', 'meters per second'],
  h: ['hour', 'hours'],
  hr: ['hour', 'hours'],
  hrs: ['hour', 'hours'],
  min: ['minute', 'minutes'],
  sec: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
  Hz: ['hertz', 'hertz'],
  kHz: ['kilohertz', 'kilohertz'],
  MHz: ['megahertz', 'megahertz'],
  GHz: ['gigahertz', 'gigahertz'],
  W: ['watt', 'watts'],
  kW: ['kilowatt', 'kilowatts'],
  kWh: ['kilowatt hour', 'kilowatt hours'],
  V: ['volt', 'volts'],
  mAh: ['milliamp hour', 'milliamp hours'],
  dB: ['decibel', 'decibels'],
  KB: ['kilobyte', 'kilobytes'],
  kB: ['kilobyte', 'kilobytes'],
  MB: ['megabyte', 'megabytes'],
  GB: ['gigabyte', 'gigabytes'],
  TB: ['terabyte', 'terabytes'],
  Mbps: ['megabit per second', 'megabits per second'],
  Gbps: ['gigabit per second', 'gigabits per second'],
  kcal: ['kilocalorie', 'kilocalories'],
}

// Longest first, so that "km/h" wins over "km" and "°C" over "°".
const SYMBOLS = Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .join('|')

const quantity = new RegExp(
  String.raw`(?<![\p{L}\d.,])(-?${NUMBER})(?:-(${NUMBER}))?\s?(${SYMBOLS})(?![\p{L}\d])`,
  'gu',
)

export function expandUnits(text: string): string {
  return text.replace(quantity, (match, first: string, second: string | undefined, symbol: string) => {
    const names = UNITS[symbol]
    if (!names) return match
    const last = second ?? first
    const name = isOne(last) ? names[0] : names[1]
    return second === undefined
      ? `${readSigned(first)} ${name}`
      : `${readSigned(first)} to ${readSigned(second)} ${name}`
  })
}
