import { describe, expect, it } from 'vitest'
import { normalizeText } from './normalize.ts'

type Case = readonly [input: string, expected: string]

const english = (cases: Case[]) =>
  it.each(cases)('%j', (input, expected) => {
    expect(normalizeText(input, { voiceLanguage: 'en-US' })).toBe(expected)
  })

describe('cardinals', () => {
  english([
    ['0', 'zero'],
    ['7', 'seven'],
    ['13', 'thirteen'],
    ['20', 'twenty'],
    ['42', 'forty-two'],
    ['100', 'one hundred'],
    ['101', 'one hundred one'],
    ['999', 'nine hundred ninety-nine'],
    ['1000', 'one thousand'],
    ['12345', 'twelve thousand three hundred forty-five'],
    ['I have 3 cats.', 'I have three cats.'],
    ['007', 'zero zero seven'],
    ['1,2,3', 'one,two,three'],
  ])
})

describe('large numbers with commas', () => {
  english([
    ['1,000,000', 'one million'],
    ['2,500,000,000', 'two billion five hundred million'],
    ['1,234,567', 'one million two hundred thirty-four thousand five hundred sixty-seven'],
    ['It sold 12,000 copies.', 'It sold twelve thousand copies.'],
  ])
})

describe('ordinals', () => {
  english([
    ['1st', 'first'],
    ['2nd', 'second'],
    ['3rd', 'third'],
    ['4th', 'fourth'],
    ['11th', 'eleventh'],
    ['12th', 'twelfth'],
    ['21st', 'twenty-first'],
    ['22nd', 'twenty-second'],
    ['40th', 'fortieth'],
    ['103rd', 'one hundred third'],
    ['1,000th', 'one thousandth'],
  ])
})

describe('decimals and negative numbers', () => {
  english([
    ['3.14', 'three point one four'],
    ['0.5', 'zero point five'],
    ['.75', 'point seven five'],
    ['10.05', 'ten point zero five'],
    ['version 1.2.3', 'version one point two point three'],
    ['-5', 'minus five'],
    ['(-12)', '(minus twelve)'],
    ['−3.5', 'minus three point five'],
    ['It fell to -40 overnight.', 'It fell to minus forty overnight.'],
  ])
})

describe('fractions', () => {
  english([
    ['1/2', 'one half'],
    ['1/3', 'one third'],
    ['2/3', 'two thirds'],
    ['3/4', 'three quarters'],
    ['5/8', 'five eighths'],
    ['1/10', 'one tenth'],
    ['7/16', 'seven sixteenths'],
    ['3/2', 'three halves'],
    ['2 3/4', 'two and three quarters'],
    ['1 1/2 cups', 'one and a half cups'],
    ['1½ cups', 'one and a half cups'],
    ['¾ cup', 'three quarters cup'],
    ['open 24/7', 'open twenty-four seven'],
    ['a 50/50 chance', 'a fifty fifty chance'],
  ])
})

describe('years and decades', () => {
  english([
    ['in 1999', 'in nineteen ninety-nine'],
    ['in 2005', 'in two thousand five'],
    ['in 1905', 'in nineteen oh five'],
    ['in 1900', 'in nineteen hundred'],
    ['in 2000', 'in two thousand'],
    ['in 2010', 'in twenty ten'],
    ['in 2024', 'in twenty twenty-four'],
    ['in 2100', 'in two thousand one hundred'],
    ['the 1990s', 'the nineteen nineties'],
    ["the '80s", 'the eighties'],
    ['in her 20s', 'in her twenties'],
  ])
})

describe('dates', () => {
  english([
    ['2024-03-05', 'March fifth, twenty twenty-four'],
    ['2024-12-31', 'December thirty-first, twenty twenty-four'],
    ['03/05/2024', 'March fifth, twenty twenty-four'],
    ['12/25/2023', 'December twenty-fifth, twenty twenty-three'],
    ['1/2/24', 'January second, twenty twenty-four'],
    ['March 5, 2024', 'March fifth, twenty twenty-four'],
    ['March 5th', 'March fifth'],
    ['Jan. 5, 2024', 'January fifth, twenty twenty-four'],
    ['Sept 30', 'September thirtieth'],
    ['5 March 2024', 'the fifth of March, twenty twenty-four'],
    ['on the 21st of June', 'on the twenty-first of June'],
    ['December 2024', 'December twenty twenty-four'],
    ['Due 2024-03-05.', 'Due March fifth, twenty twenty-four.'],
  ])
})

describe('times', () => {
  english([
    ['3:30 pm', 'three thirty p.m.'],
    ['15:45', 'fifteen forty-five'],
    ['9:05 am', 'nine oh five a.m.'],
    ['11:59 PM', 'eleven fifty-nine p.m.'],
    ['7am', 'seven a.m.'],
    ['12 p.m.', 'twelve p.m.'],
    ['12:00', "twelve o'clock"],
    ['18:00', 'eighteen hundred'],
    ['10:15:30', 'ten fifteen and thirty seconds'],
    ['Meet at 5 pm. Then eat.', 'Meet at five p.m. Then eat.'],
  ])
})

describe('currencies', () => {
  english([
    ['$3.50', 'three dollars and fifty cents'],
    ['$1', 'one dollar'],
    ['$1.01', 'one dollar and one cent'],
    ['$0.99', 'ninety-nine cents'],
    ['$1,000,000', 'one million dollars'],
    ['-$20', 'minus twenty dollars'],
    ['€12', 'twelve euros'],
    ['€3.5', 'three point five euros'],
    ['5€', 'five euros'],
    ['£1,200.99', 'one thousand two hundred pounds and ninety-nine pence'],
    ['£0.01', 'one penny'],
    ['¥500', 'five hundred yen'],
    ['₹250', 'two hundred fifty rupees'],
    ['100 USD', 'one hundred U S dollars'],
    ['EUR 5', 'five euros'],
    ['50 GBP', 'fifty pounds'],
    ['JPY 1000', 'one thousand yen'],
    ['CAD 20.25', 'twenty Canadian dollars and twenty-five cents'],
    ['$2.5M', 'two point five million dollars'],
    ['$10k', 'ten thousand dollars'],
    ['$3bn', 'three billion dollars'],
    ['$5 million', 'five million dollars'],
  ])
})

describe('percentages', () => {
  english([
    ['50%', 'fifty percent'],
    ['1%', 'one percent'],
    ['0.5%', 'zero point five percent'],
    ['-2%', 'minus two percent'],
    ['10-20%', 'ten to twenty percent'],
  ])
})

describe('units', () => {
  english([
    ['5km', 'five kilometers'],
    ['5 km', 'five kilometers'],
    ['1 km', 'one kilometer'],
    ['42.195 km', 'forty-two point one nine five kilometers'],
    ['10 kg', 'ten kilograms'],
    ['3.5GB', 'three point five gigabytes'],
    ['1 GB', 'one gigabyte'],
    ['20°C', 'twenty degrees Celsius'],
    ['-5°C', 'minus five degrees Celsius'],
    ['98.6°F', 'ninety-eight point six degrees Fahrenheit'],
    ['90°', 'ninety degrees'],
    ['60 mph', 'sixty miles per hour'],
    ['100 km/h', 'one hundred kilometers per hour'],
    ['9.8 m/s', 'nine point eight meters per second'],
    ['100 ms', 'one hundred milliseconds'],
    ['30 min', 'thirty minutes'],
    ['180cm', 'one hundred eighty centimeters'],
    ['6 ft', 'six feet'],
    ['2 lbs', 'two pounds'],
    ['2.4 GHz', 'two point four gigahertz'],
    ['10-20 km', 'ten to twenty kilometers'],
    ['5 in a row', 'five in a row'],
  ])
})

describe('phone numbers', () => {
  english([
    ['555-123-4567', 'five five five, one two three, four five six seven'],
    ['(555) 123-4567', 'five five five, one two three, four five six seven'],
    ['555.123.4567', 'five five five, one two three, four five six seven'],
    ['555-1234', 'five five five, one two three four'],
    ['+1 555 123 4567', 'plus one, five five five, one two three, four five six seven'],
    ['+44 20 7946 0958', 'plus four four, two zero, seven nine four six, zero nine five eight'],
  ])
})

describe('long digit runs (read digit by digit in groups of four, never dropped)', () => {
  english([
    // Up to fifteen digits a run is a number; past the trillions it is an ID.
    [
      '999999999999999',
      'nine hundred ninety-nine trillion nine hundred ninety-nine billion nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine',
    ],
    ['1234567890123456', 'one two three four, five six seven eight, nine zero one two, three four five six'],
    // Past 2^53 a float would round the last digits away: every digit is still read as written.
    [
      '12345678901234567891',
      'one two three four, five six seven eight, nine zero one two, three four five six, seven eight nine one',
    ],
    // A lone last digit joins the group before it as three and two.
    [
      '12345678901234567',
      'one two three four, five six seven eight, nine zero one two, three four five, six seven',
    ],
    [
      'Your account is 98765432109876543.',
      'Your account is nine eight seven six, five four three two, one zero nine eight, seven six five, four three.',
    ],
    ['Ref 0012345678', 'Ref zero zero one two, three four five six, seven eight'],
    ['007', 'zero zero seven'],
    ['02134', 'zero two one three four'],
    [
      'ABC12345678901234567',
      'A B C one two three four, five six seven eight, nine zero one two, three four five, six seven',
    ],
    ['3.14159265', 'three point one four one five, nine two six five'],
    // Groups the writer put commas between are kept when the number is too long for words.
    [
      '1,234,567,890,123,456,789',
      'one, two three four, five six seven, eight nine zero, one two three, four five six, seven eight nine',
    ],
    [
      '$12345678901234567890.50',
      'one two three four, five six seven eight, nine zero one two, three four five six, seven eight nine zero dollars and fifty cents',
    ],
  ])

  it.each([200, 400, 40_000])('reads all %i digits of a run', (length) => {
    const run = '1234567890'.repeat(length / 10)
    const spoken = normalizeText(run, { voiceLanguage: 'en-US' })
    expect(spoken).not.toMatch(/\d/)
    const words = spoken.split(/[ ,]+/)
    expect(words).toHaveLength(length)
    expect(words.slice(0, 10)).toEqual([
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'zero',
    ])
    expect(spoken.split(', ')).toHaveLength(length / 4)
  })

  it('reads a run inside other text the same as alone', () => {
    const run = '4'.repeat(30)
    const alone = normalizeText(run, { voiceLanguage: 'en-US' })
    expect(normalizeText(`Pay into ${run} today.`, { voiceLanguage: 'en-US' })).toBe(
      `Pay into ${alone} today.`,
    )
  })
})

describe('long digit runs in other languages (cleanup only, but never dropped)', () => {
  it.each([
    ['de', 'Konto 12345678901234567890.', 'Konto 1 2 3 4, 5 6 7 8, 9 0 1 2, 3 4 5 6, 7 8 9 0.'],
    ['zh-CN', '账号1234567890123456789', '账号1 2 3 4, 5 6 7 8, 9 0 1 2, 3 4 5 6, 7 8 9'],
    ['ru', 'Счёт 12345678901234567', 'Счёт 1 2 3 4, 5 6 7 8, 9 0 1 2, 3 4 5, 6 7'],
    // Up to fifteen digits the voice's own number rules read them.
    ['de', 'Ich habe 123456789012345 Katzen.', 'Ich habe 123456789012345 Katzen.'],
    ['de', 'Am 5. März 2024', 'Am 5. März 2024'],
  ])('%s: %j', (voiceLanguage, input, expected) => {
    expect(normalizeText(input, { voiceLanguage })).toBe(expected)
  })
})

describe('runs the engine would cut short (it reads at most about 25 emoji or 40 spelled letters as one word)', () => {
  it.each([
    ['en-US', '😀😀😀', '😀 😀 😀'],
    ['en-US', 'Done😀👍.', 'Done 😀 👍.'],
    ['en-US', '👩‍💻👩‍💻 🇩🇪🇫🇷', '👩‍💻 👩‍💻 🇩🇪 🇫🇷'],
    ['de', 'Prima👍👍', 'Prima 👍 👍'],
    ['en-US', 'Acme™ and ©', 'Acme™ and ©'],
    [
      'en-US',
      'x'.repeat(70),
      `${'x'.repeat(16)} ${'x'.repeat(16)} ${'x'.repeat(16)} ${'x'.repeat(16)} xxxxxx`,
    ],
    // Real words stay whole, and so do scripts written without spaces.
    ['de', 'Donaudampfschifffahrtsgesellschaftskapitän', 'Donaudampfschifffahrtsgesellschaftskapitän'],
    ['zh-CN', '猫'.repeat(70), '猫'.repeat(70)],
    ['en-US', 'https://example.com/a/b?c=d', 'https://example.com/a/b?c=d'],
    // Markup stays markup.
    ['en-US', '[sad] (((no way))) <laugh>😀😀', '[sad] (((no way))) <laugh>😀 😀'],
    ['de', 'Ich (((liebe))) es 😀😀', 'Ich (((liebe))) es 😀 😀'],
  ])('%s: %j', (voiceLanguage, input, expected) => {
    expect(normalizeText(input, { voiceLanguage })).toBe(expected)
  })
})

describe('digits written in groups (card, account and ID numbers)', () => {
  english([
    ['4111 1111 1111 1111', 'four one one one, one one one one, one one one one, one one one one'],
    [
      'Card 4111-1111-1111-1111.',
      'Card four one one one, one one one one, one one one one, one one one one.',
    ],
    [
      'IBAN DE89 3704 0044 0532 0130 00',
      'I B A N D E eighty-nine three seven zero four, zero zero four four, zero five three two, zero one three zero, zero zero',
    ],
    ['SSN 123-45-6789', 'S S N one two three, four five, six seven eight nine'],
    ['020 7946 0958', 'zero two zero, seven nine four six, zero nine five eight'],
    ['Call 0800 123456 now.', 'Call zero eight zero zero, one two three four five six now.'],
    ['12-3456-7890123-00', 'one two, three four five six, seven eight nine zero one two three, zero zero'],
    // Not IDs: small numbers in a row, a range, years, thousands written with spaces.
    ['10 11 12 13', 'ten eleven twelve thirteen'],
    ['1990-1995', 'nineteen ninety to nineteen ninety-five'],
    ['1990 1995 2000', 'nineteen ninety nineteen ninety-five two thousand'],
    ['in 1999 2 cats', 'in nineteen ninety-nine two cats'],
  ])
})

describe('ranges', () => {
  english([
    ['10-20', 'ten to twenty'],
    ['pages 10–20', 'pages ten to twenty'],
    ['1990-1995', 'nineteen ninety to nineteen ninety-five'],
    ['200-1000 words', 'two hundred to one thousand words'],
    ['COVID-19', 'COVID-nineteen'],
  ])
})

describe('abbreviations', () => {
  english([
    ['Dr. Smith', 'Doctor Smith'],
    ['Mr. Jones', 'Mister Jones'],
    ['Mrs. Brown', 'Missus Brown'],
    ['Ms. Lee', 'Miz Lee'],
    ['Prof. Xavier', 'Professor Xavier'],
    ['St. Louis', 'Saint Louis'],
    ['Main St. at noon', 'Main Street at noon'],
    ['42 Elm Dr.', 'forty-two Elm Drive.'],
    ['Mt. Everest', 'Mount Everest'],
    ['King Jr. was', 'King Junior was'],
    ['Acme Inc. makes', 'Acme Incorporated makes'],
    ['apples, pears, etc.', 'apples, pears, et cetera.'],
    ['pears, etc. Then more', 'pears, et cetera. Then more'],
    ['fruit, e.g., apples', 'fruit, for example, apples'],
    ['the best, i.e. ours', 'the best, that is ours'],
    ['cats vs. dogs', 'cats versus dogs'],
    ['cats vs dogs', 'cats versus dogs'],
    ['a.k.a. Bob', 'also known as Bob'],
    ['No. 5', 'number five'],
    ['#1 hit', 'number one hit'],
    ['tea w/ milk, w/o sugar', 'tea with milk, without sugar'],
    ['the U.S. Army', 'the U S Army'],
    ['in the U.S.', 'in the U S.'],
  ])
})

describe('initialisms', () => {
  english([
    ['the FBI', 'the F B I'],
    ['NASA', 'NASA'],
    ['NATO', 'NATO'],
    ['the USA and UK', 'the U S A and U K'],
    ['CEOs', "C E O's"],
    ['my PIN', 'my PIN'],
    ['It is OK', 'It is okay'],
    ['Please STOP.', 'Please STOP.'],
    ['I SAID STOP IT NOW.', 'I SAID STOP IT NOW.'],
    ['World War II', 'World War two'],
    ['Henry VIII', 'Henry the eighth'],
    ['MP3', 'M P three'],
    ['5G', 'five G'],
  ])
})

describe('light formatting', () => {
  english([
    ['First line\nsecond line.', 'First line second line.'],
    ['Ends here.\nNext line.', 'Ends here.\nNext line.'],
    ['Heading\n\nBody text.', 'Heading\n\nBody text.'],
    ['the end.Next one', 'the end. Next one'],
    ['Hi!How are you?Fine.', 'Hi! How are you? Fine.'],
    ['Wait... what?', 'Wait, what?'],
    ['Wait...what?', 'Wait, what?'],
    ['Wait … what?', 'Wait, what?'],
    ['Hmm . . . fine', 'Hmm, fine'],
    ['And then...', 'And then.'],
    ['... and so', 'and so'],
    ['Really...?', 'Really?'],
  ])
})

describe('markup survives', () => {
  english([
    ['[sad] I lost $5. <sigh>', '[sad] I lost five dollars. <sigh>'],
    ['[joyful] We won 3 games! <laugh>', '[joyful] We won three games! <laugh>'],
    ['[ANGRY] Pay $5 now <GASP>', '[ANGRY] Pay five dollars now <GASP>'],
    ['I said (((15 times))) already.', 'I said (((fifteen times))) already.'],
    ['(((wait...)))', '(((wait,)))'],
    ['<um> the FBI [mundane] called', '<um> the F B I [mundane] called'],
    ['[surprised](((NASA)))<gasp>', '[surprised](((NASA)))<gasp>'],
    // Past the 80-character limit the emphasis would be spoken, so it is split into runs that each stay valid.
    [
      '(((1,234,567,891)))',
      '(((one billion two hundred thirty-four million five hundred sixty-seven thousand))) (((eight hundred ninety-one)))',
    ],
    // Not markup: spoken as ordinary words, and normalized as such.
    ['[happy] <nope> ((2)) ((((4))))', '[happy] <nope> ((two)) ((((four))))'],
  ])
})

describe('cleanup', () => {
  english([
    ['he said “hi” — then left', 'he said "hi", then left'],
    ['the Paris–London train', 'the Paris-London train'],
    ['wait – what', 'wait, what'],
    ['don’t', "don't"],
    ['tab\there', 'tab here'],
    ['  spaced   out  ', 'spaced out'],
    ['no!!!', 'no!'],
    ['what??', 'what?'],
    ['zero\u200Bwidth', 'zerowidth'],
    ['e\u0301', 'é'],
    ['a\r\nb.\r\nc', 'a b.\nc'],
  ])
})

describe('other voices and languages', () => {
  it.each([
    // German text, German voice: cleanup only.
    ['de', 'Ich habe 3 Katzen und 2 Hunde.', 'Ich habe 3 Katzen und 2 Hunde.'],
    ['de', 'Am 5. März 2024 um 15:45 Uhr kostet es 12 €.', 'Am 5. März 2024 um 15:45 Uhr kostet es 12 €.'],
    ['de', '„Hallo“ sagte er — dann ging er.', '"Hallo" sagte er, dann ging er.'],
    ['de-DE', 'Das kostet 5 Euro… oder?', 'Das kostet 5 Euro… oder?'],
    ['de', '[traurig] Ich habe 5 € verloren. <sigh>', '[traurig] Ich habe 5 € verloren. <sigh>'],
    // English text, German voice: expanded.
    [
      'de',
      'I paid $3.50 for 2 coffees on March 5, 2024.',
      'I paid three dollars and fifty cents for two coffees on March fifth, twenty twenty-four.',
    ],
    ['de', 'The meeting starts at 3:30 pm.', 'The meeting starts at three thirty p.m.'],
    [
      'de',
      '[sad] I lost $5 yesterday and it hurts. <sigh>',
      '[sad] I lost five dollars yesterday and it hurts. <sigh>',
    ],
    ['fr', 'Hello, I have 3 cats and 2 dogs.', 'Hello, I have three cats and two dogs.'],
    ['fr', 'Le rendez-vous est à 15h30, il coûte 12 €.', 'Le rendez-vous est à 15h30, il coûte 12 €.'],
    ['es', 'Tengo 3 gatos y 2 perros.', 'Tengo 3 gatos y 2 perros.'],
    // Too short to tell: other voices read it as written.
    ['de', 'OK 5', 'OK 5'],
    // Other scripts: cleanup only, whatever the voice.
    ['ar', 'لدي 3 قطط و 2 كلاب.', 'لدي 3 قطط و 2 كلاب.'],
    ['ar-SA', 'مرحبا  بالعالم!!', 'مرحبا بالعالم!'],
    ['ru', 'У меня 3 кошки и 2 собаки.', 'У меня 3 кошки и 2 собаки.'],
    ['ru', 'Привет,   мир!!!', 'Привет, мир!'],
    ['en-US', 'У меня 3 кошки.', 'У меня 3 кошки.'],
    ['hi', 'मेरे पास 3 बिल्लियाँ हैं।', 'मेरे पास 3 बिल्लियाँ हैं।'],
    ['zh-CN', '我有3只猫和2只狗。', '我有3只猫和2只狗。'],
    ['zh-CN', '今天是2024年3月5日，价格是$5。', '今天是2024年3月5日，价格是$5。'],
    ['zh-CN', '[sad] 我丢了5块钱。<sigh>', '[sad] 我丢了5块钱。<sigh>'],
    ['en-US', '我有3只猫。', '我有3只猫。'],
    ['ja', '今日は3月5日です。', '今日は3月5日です。'],
    ['ko', '나는 고양이 3마리가 있어요.', '나는 고양이 3마리가 있어요.'],
    // Joining and ZWNJ stay: they shape the script.
    ['fa', 'می\u200Cخواهم', 'می\u200Cخواهم'],
    ['en-GB', 'I have 3 cats.', 'I have three cats.'],
  ])('%s: %j', (voiceLanguage, input, expected) => {
    expect(normalizeText(input, { voiceLanguage })).toBe(expected)
  })
})

// Speed is measured by `npm run bench:engine`-style scripts, never asserted here.
it('normalizes the 40,000-character maximum input completely', () => {
  const text =
    'On March 5, 2024, Dr. Smith paid $3.50 for 2 coffees at 3:30 pm. [sad] The FBI said 50% (((in 1999))). '
  const input = text.repeat(400).slice(0, 40_000)
  const output = normalizeText(input, { voiceLanguage: 'en-US' })
  expect(output).not.toMatch(/\d/)
})
