import { describe, expect, it } from 'vitest'
import { MAX_PHRASE_CHARS } from '../../../core/phrase-buffer.ts'
import { MAX_APPEND_CHARS, MAX_SESSION_CHARS } from '../../../schema/index.ts'
import {
  EMPTY_LIVE_TEXT,
  editLiveText,
  idleDeadline,
  LIVE_IDLE_MS,
  type LiveText,
  takePhrases,
  takeRest,
  unlockLiveText,
} from './live-text.ts'

/** Types `text` after what the box holds, one character every `keyMs`, sending as the live box does. */
function type(text: string, from: LiveText = EMPTY_LIVE_TEXT, start = 0, keyMs = 60) {
  let live = from
  let now = start
  const appends: string[] = []
  for (const ch of text) {
    now += keyMs
    live = editLiveText(live, live.text + ch, now)
    const step = takePhrases(live, now)
    live = step.live
    appends.push(...step.appends)
  }
  return { live, appends, now }
}

const PARAGRAPH =
  'The lighthouse keeper climbed the stairs at dusk. Hi. ' +
  'Every evening he counted the steps, one hundred and twelve of them, and every evening the count came out ' +
  'the same; the sea did not care either way. Below him the harbour lights came on one by one, ' +
  'and a ferry turned for home. ' +
  'He lit the lamp and listened to the gulls settling on the rocks below the tower for the night'

describe('takePhrases while typing', () => {
  it('holds short sentences until a phrase of at least 50 characters is complete, then sends it whole', () => {
    const first = 'Hi. I am here. This sentence takes the phrase past fifty characters. '
    const { live, appends } = type(`${first}And`)
    expect(appends).toEqual([first])
    expect(live.sent).toBe(first.length)
  })

  it('cuts at a clause once the phrase is long enough, and not before', () => {
    const { appends: none } = type('Short, then a comma, then another, and')
    expect(none).toEqual([])
    const clause = 'A clause that runs on well past fifty characters before, '
    expect(type(`${clause}then more`).appends).toEqual([clause])
  })

  it('sends a phrase as soon as the white space after its end is typed, before the writer goes on', () => {
    const sentence = 'This sentence is long enough to be worth speaking on its own.'
    const typed = type(sentence)
    expect(typed.appends).toEqual([])
    expect(type(' ', typed.live, typed.now).appends).toEqual([`${sentence} `])
  })

  it('cuts long unpunctuated text at a space before 500 characters', () => {
    const text = 'word '.repeat(140)
    const { live, appends } = type(text, EMPTY_LIVE_TEXT, 0, 1)
    expect(appends.length).toBe(1)
    expect(appends[0]?.length).toBeLessThanOrEqual(MAX_PHRASE_CHARS)
    expect(appends[0]?.endsWith('word ')).toBe(true)
    expect(live.text.startsWith(appends.join(''))).toBe(true)
  })

  it('cuts a pasted sentence longer than 500 characters at a space too', () => {
    const live = editLiveText(EMPTY_LIVE_TEXT, `${'many words '.repeat(60)}end. Next`, 0)
    const { appends } = takePhrases(live, 0)
    expect(appends.length).toBe(2)
    expect(appends.every((a) => a.length <= MAX_PHRASE_CHARS + 1)).toBe(true)
    expect(appends.join('')).toBe(`${'many words '.repeat(60)}end. `)
  })

  it('sends a whole paragraph exactly once, in appends of 50 to 500 characters, within the append limit', () => {
    const { live, appends } = type(PARAGRAPH)
    const rest = takeRest(live)
    const all = [...appends, ...rest.appends]
    expect(all.join('')).toBe(PARAGRAPH)
    expect(appends.length).toBeGreaterThanOrEqual(3)
    for (const a of appends) {
      expect(a.trim().length).toBeGreaterThanOrEqual(50)
      expect(a.length).toBeLessThanOrEqual(Math.min(MAX_APPEND_CHARS, MAX_PHRASE_CHARS + 1))
    }
    expect(rest.live.sent).toBe(PARAGRAPH.length)
  })

  it('sends a large paste as many phrases, none over the append limit', () => {
    const paste = `${PARAGRAPH}. `.repeat(60)
    const { live, appends } = takePhrases(editLiveText(EMPTY_LIVE_TEXT, paste, 0), 0)
    expect(paste.length).toBeGreaterThan(MAX_APPEND_CHARS)
    expect(appends.length).toBeGreaterThan(60)
    expect(appends.every((a) => a.length <= MAX_PHRASE_CHARS + 1)).toBe(true)
    expect(appends.join('')).toBe(paste.slice(0, live.sent))
  })
})

describe('the pause rule', () => {
  it('sends a complete short sentence once typing has paused for the idle time, not before', () => {
    const { live, appends, now } = type('Short line.')
    expect(appends).toEqual([])
    expect(idleDeadline(live)).toBe(now + LIVE_IDLE_MS)
    expect(takePhrases(live, now + LIVE_IDLE_MS - 1).appends).toEqual([])
    const after = takePhrases(live, now + LIVE_IDLE_MS)
    expect(after.appends).toEqual(['Short line.'])
    expect(idleDeadline(after.live)).toBeNull()
  })

  it('takes an injected idle time', () => {
    const { live, now } = type('Yes.')
    expect(takePhrases(live, now + 100, 100).appends).toEqual(['Yes.'])
    expect(idleDeadline(live, 100)).toBe(now + 100)
  })

  it('keeps an unfinished sentence after the last complete one, and never sends it on a pause', () => {
    const { live, now } = type('Hi there. And th')
    const after = takePhrases(live, now + 5_000)
    expect(after.appends).toEqual(['Hi there. '])
    expect(after.live.text.slice(after.live.sent)).toBe('And th')
    expect(idleDeadline(after.live)).toBeNull()
    expect(takePhrases(after.live, now + 10_000).appends).toEqual([])
  })

  it('sends text written before the session at once when it has waited long enough', () => {
    const live = editLiveText(EMPTY_LIVE_TEXT, 'Written before Start. Still going', 0)
    expect(takePhrases(live, 10_000).appends).toEqual(['Written before Start. '])
  })
})

describe('sent text is locked', () => {
  const sentence = 'This sentence is long enough to be worth speaking on its own. '
  const locked = type(`${sentence}Then`)

  it('refuses an edit before the sent boundary, with a plain notice, and keeps the text', () => {
    expect(locked.live.sent).toBe(sentence.length)
    const edited = editLiveText(locked.live, locked.live.text.replace('This', 'That'), locked.now + 10)
    expect(edited.text).toBe(locked.live.text)
    expect(edited.sent).toBe(sentence.length)
    expect(edited.notice).toMatch(/already sent/)
    // Deleting into the sent part is refused as well.
    expect(editLiveText(locked.live, sentence.slice(0, -3), 0).text).toBe(locked.live.text)
  })

  it('accepts edits after the boundary, and clears the notice', () => {
    const refused = editLiveText(locked.live, 'x', 0)
    const edited = editLiveText(refused, `${sentence}Than`, 1)
    expect(edited.text).toBe(`${sentence}Than`)
    expect(edited.notice).toBeNull()
  })

  it('is unlocked when the session ends, keeping the text for the next one', () => {
    const unlocked = unlockLiveText(locked.live)
    expect(unlocked).toMatchObject({ text: locked.live.text, sent: 0 })
    expect(editLiveText(unlocked, 'Rewritten.', 0).text).toBe('Rewritten.')
  })
})

describe('finish and limits', () => {
  it('sends the rest on Finish, phrases first, and nothing for white space alone', () => {
    const first = 'A first phrase that is quite long enough to stand alone, '
    const live = editLiveText(EMPTY_LIVE_TEXT, `${first}then the unfinished rest`, 0)
    const rest = takeRest(live)
    expect(rest.appends).toEqual([first, 'then the unfinished rest'])
    expect(rest.live.sent).toBe(live.text.length)
    const blank = takeRest(editLiveText(rest.live, `${rest.live.text}  `, 0))
    expect(blank.appends).toEqual([])
    expect(blank.live.sent).toBe(rest.live.text.length + 2)
  })

  it(`holds at most ${MAX_SESSION_CHARS} characters and refuses more with a plain notice`, () => {
    const full = editLiveText(EMPTY_LIVE_TEXT, 'a'.repeat(MAX_SESSION_CHARS), 0)
    expect(full.text.length).toBe(MAX_SESSION_CHARS)
    expect(full.notice).toBeNull()
    const over = editLiveText(full, `${full.text}b`, 1)
    expect(over.text).toBe(full.text)
    expect(over.notice).toMatch(/at most 262,144 characters/)
  })
})
