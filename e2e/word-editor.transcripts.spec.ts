import { readFileSync } from 'node:fs'
import { expect, type Locator, type Page, test } from '@playwright/test'
import { meetingFile } from '../server/testing/meetings.ts'
import { seriousViolations, transcribeUpload } from './support.ts'

/**
 * The reviewer's word editor (issue 37) against the real backend and the real local speech service (PocketSphinx and
 * the diarizer), nothing mocked, on a real meeting recording: words as buttons that move the playhead, the spoken
 * word marked during playback, a word corrected in place and kept over a reload, find and replace across the
 * transcript undone with Ctrl+Z, and the exports carrying the corrected words.
 */

const RECORDING = meetingFile('trn08.wav')
/** Its own name, so the saved list's entry is this test's whatever else ran. */
const NAME = 'word-editor trn08.wav'

type Saved = {
  result: { words: Array<{ word: string; start: number; end: number }> }
  labels: {
    revision: number
    edits: {
      texts?: Record<string, string>
      timings?: Record<string, { text: string; spans: Array<[number, number]> }>
    }
  }
}

async function saved(page: Page, id: string): Promise<Saved> {
  return (await (await page.request.get(`/api/transcripts/${id}`)).json()) as Saved
}

async function downloaded(page: Page, button: string): Promise<string> {
  const download = page.waitForEvent('download')
  await page
    .getByRole('region', { name: 'Export' })
    .getByRole('button', { name: button, exact: true })
    .click()
  return readFileSync((await (await download).path()) as string, 'utf8')
}

const audioTime = (page: Page) =>
  page.evaluate(() => (document.querySelector('audio') as HTMLAudioElement).currentTime)

/** The first turn shown with at least `n` words, and its number on the page (1-based). */
async function turnWithWords(review: Locator, n: number): Promise<{ turn: Locator; number: number }> {
  const turns = review.locator('li.turn[data-start]')
  const count = await turns.count()
  for (let i = 0; i < count; i++) {
    const turn = turns.nth(i)
    if ((await turn.locator('button.word').count()) >= n) {
      return { turn, number: Number(await turn.getAttribute('aria-posinset')) }
    }
  }
  throw new Error(`no turn with ${n} words`)
}

test('a reviewer corrects words, replaces across the transcript, undoes, and exports the correction', async ({
  page,
}) => {
  test.setTimeout(240_000)
  await page.goto('/transcripts')
  await page.getByLabel('Exactly').check()
  await page.getByLabel('Exact number of speakers').fill('2')
  const id = await transcribeUpload(page, NAME, readFileSync(RECORDING))
  const review = page.getByRole('region', { name: NAME })
  await expect(review.locator('li.turn').first()).toBeVisible()

  // Words are buttons; one tab stop per turn, the arrow keys move between its words.
  const { turn, number } = await turnWithWords(review, 3)
  const words = turn.getByRole('group', { name: `Words of turn ${number}` }).getByRole('button')
  await expect(words.nth(0)).toHaveAttribute('tabindex', '0')
  await expect(words.nth(1)).toHaveAttribute('tabindex', '-1')

  // Clicking a word puts the playhead at its start (within 0.3 s: the audio element's own clock).
  const second = words.nth(1)
  const secondStart = Number(await second.getAttribute('data-start'))
  await second.click()
  await expect.poll(() => audioTime(page)).toBeGreaterThan(secondStart - 0.3)
  expect(Math.abs((await audioTime(page)) - secondStart)).toBeLessThan(0.3)
  await page.keyboard.press('ArrowRight')
  await expect(words.nth(2)).toBeFocused()
  await page.keyboard.press('Enter')
  const thirdStart = Number(await words.nth(2).getAttribute('data-start'))
  await expect.poll(() => audioTime(page)).toBeCloseTo(thirdStart, 0)

  // During playback the spoken word is marked, inside the turn being heard, and moves forward.
  await review.getByRole('button', { name: 'Play', exact: true }).click()
  const spoken = review.locator('li.turn-current button.word[aria-current="time"]')
  await expect(spoken).toHaveCount(1)
  const firstMarked = Number(await spoken.getAttribute('data-start'))
  await expect
    .poll(async () => Number(await spoken.getAttribute('data-start')), { timeout: 10_000 })
    .toBeGreaterThan(firstMarked)
  // Ctrl+Space pauses (and would while typing).
  await page.keyboard.press('Control+Space')
  await expect(review.getByRole('button', { name: 'Play', exact: true })).toBeVisible()

  // Correct the turn's text in place: Escape cancels, Ctrl+Enter keeps it.
  await turn.getByRole('button', { name: `Edit text of turn ${number}` }).click()
  const box = turn.getByRole('textbox', { name: `Text of turn ${number}` })
  await expect(box).toBeFocused()
  const original = await box.inputValue()
  await box.fill('nothing kept')
  await page.keyboard.press('Escape')
  await expect(box).toHaveCount(0)
  await expect(turn.getByRole('button', { name: `Edit text of turn ${number}` })).toBeFocused()
  const originalWords = original.split(' ')
  const corrected = ['Zanzibar', ...originalWords.slice(1)].join(' ')
  await turn.getByRole('button', { name: `Edit text of turn ${number}` }).click()
  await box.fill(corrected)
  expect(await seriousViolations(page)).toEqual([])
  await page.keyboard.press('Control+Enter')
  await expect(review.getByText('Label edits saved')).toBeVisible()
  await expect(words.nth(0)).toHaveText('Zanzibar')
  // The unchanged words kept their recognized times; the changed one is timed within the turn.
  const turnIndex = await turn.getAttribute('data-turn')
  const after = await saved(page, id)
  expect(after.labels.edits.texts?.[turnIndex as string]).toBe(corrected)
  expect(Number(await words.nth(1).getAttribute('data-start'))).toBeCloseTo(secondStart, 3)
  // The service's forced alignment placed the corrected words in the audio; the times are kept with the correction.
  const timingOf = async () => (await saved(page, id)).labels.edits.timings?.[turnIndex as string]
  await expect.poll(async () => (await timingOf())?.text, { timeout: 30_000 }).toBe(corrected)
  expect((await timingOf())?.spans).toHaveLength(corrected.split(' ').length)
  await expect(review.getByText(/Placing the corrected words/)).toHaveCount(0)

  // It is still there after a reload.
  await page.reload()
  await page
    .getByRole('region', { name: 'Saved transcripts' })
    .getByRole('button', { name: `Open ${NAME}` })
    .click()
  await expect(review.locator(`li.turn[data-turn="${turnIndex}"] button.word`).first()).toHaveText('Zanzibar')

  // Find and replace: the count of matches, Replace all as one edit, Ctrl+Z restores every match.
  const common = mostCommonWord(await downloaded(page, 'Text'))
  const finder = review.getByRole('region', { name: 'Find and replace' })
  await finder.getByLabel('Find', { exact: true }).fill(common.word)
  await finder.getByLabel('Whole words only').check()
  await expect(finder.getByRole('status')).toHaveText(`${common.count} matches`)
  await finder.getByLabel('Replace with').fill('QUOKKA')
  await finder.getByRole('button', { name: 'Replace all' }).click()
  await expect(finder.getByRole('status')).toContainText(`Replaced ${common.count} matches`)
  await expect(review.getByText('Label edits saved')).toBeVisible()
  const replaced = await saved(page, id)
  const texts = Object.values(replaced.labels.edits.texts ?? {}).join(' ')
  expect(texts.match(/QUOKKA/g)?.length).toBe(common.count)
  expect(await downloaded(page, 'Text')).toContain('QUOKKA')

  await review.getByRole('region', { name: 'Turns' }).focus()
  await page.keyboard.press('Control+z')
  await expect(review.locator('button.word', { hasText: 'QUOKKA' })).toHaveCount(0)
  await expect
    .poll(async () => JSON.stringify((await saved(page, id)).labels.edits.texts))
    .not.toContain('QUOKKA')
  await expect(finder.getByRole('status')).toHaveText(new RegExp(`^${common.count} matches`))

  // The exports carry the correction that stayed.
  expect(await downloaded(page, 'SRT')).toContain('Zanzibar')
  expect(await downloaded(page, 'WebVTT')).toContain('Zanzibar')
  expect(await downloaded(page, 'Text')).toContain('Zanzibar')
  const json = JSON.parse(await downloaded(page, 'JSON')) as {
    words: Array<{ word: string }>
    labels: { transcript: Array<{ text: string }> }
  }
  expect(json.labels.transcript.some((t) => t.text.startsWith('Zanzibar'))).toBe(true)
  // The service's result is unchanged.
  expect(json.words.some((w) => w.word === 'Zanzibar')).toBe(false)

  // The Subtitles region lists the cues the SRT carries, the correction among them, each flagged one with why.
  const subtitles = review.getByRole('region', { name: 'Subtitles' })
  await expect(subtitles.getByText(/^\d+ cues(;|,)/)).toBeVisible()
  const flagged = subtitles.locator('li[data-flagged]')
  if ((await flagged.count()) > 0)
    await expect(flagged.first().locator('.cue-problems li').first()).not.toBeEmpty()
  await subtitles.getByLabel('Only cues that break a rule').uncheck()
  const cue = subtitles
    .locator('.cues > li')
    .filter({ has: page.locator('.cue-line', { hasText: 'Zanzibar' }) })
  const go = cue.first().getByRole('button', { name: /^Go to cue \d+, / })
  const [, m, sec] = /, (\d+):([\d.]+)–/.exec((await go.getAttribute('aria-label')) ?? '') ?? []
  await go.click()
  await expect
    .poll(async () => Number(await page.getByTestId('playhead').getAttribute('data-seconds')))
    .toBeCloseTo(Number(m) * 60 + Number(sec), 0)

  // A deliberately long correction of a short turn: far more to read than the turn's time allows, so its cues are
  // flagged for reading speed (the cue maker keeps every other rule); Ctrl+Z takes it back.
  const long = `${corrected} ${'and then a great many more words were said here than anyone could read in time'.repeat(3)}`
  await turn.getByRole('button', { name: `Edit text of turn ${number}` }).click()
  await turn.getByRole('textbox', { name: `Text of turn ${number}` }).fill(long)
  await page.keyboard.press('Control+Enter')
  await expect(review.getByText('Label edits saved')).toBeVisible()
  await subtitles.getByLabel('Only cues that break a rule').check()
  const tooFast = subtitles
    .locator('.cues > li[data-flagged]')
    .filter({ has: page.locator('.cue-line', { hasText: 'great many more words' }) })
  await expect(tooFast.first().locator('.cue-problems')).toContainText('characters a second (at most 17)')
  await review.getByRole('region', { name: 'Turns' }).focus()
  await page.keyboard.press('Control+z')
  await expect(tooFast).toHaveCount(0)

  // Usable at 390 px: no sideways scrolling, and axe still finds nothing serious.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBe(390)
  expect(await seriousViolations(page)).toEqual([])
})

/** The word that occurs most often in a text export's turns (as whole words, any case), and how often. */
function mostCommonWord(text: string): { word: string; count: number } {
  const counts = new Map<string, number>()
  for (const line of text.split('\n')) {
    const words = line
      .replace(/^\[[^\]]*\] [^:]*: /, '')
      .toLowerCase()
      .split(/\s+/)
    for (const key of words) if (/^[a-z]{2,}$/.test(key)) counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const [word] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['']
  // Counted again as the page counts whole words: not inside a longer word, punctuation around it allowed.
  const texts = text
    .split('\n')
    .map((line) => line.replace(/^\[[^\]]*\] [^:]*: /, ''))
    .join('\n')
  const count = [...texts.matchAll(new RegExp(`(?<![\\p{L}\\p{N}'])${word}(?![\\p{L}\\p{N}'])`, 'giu'))]
    .length
  expect(count).toBeGreaterThan(1)
  return { word, count }
}

test('a saved live session opens in the same editor: its words seek, and a correction is kept', async ({
  page,
}) => {
  test.setTimeout(150_000)
  await page.goto('/transcripts')
  const live = page.getByRole('region', { name: 'Live from the microphone' })
  await live.getByLabel('Label speakers (diarization)').uncheck()
  await live.getByRole('button', { name: 'Start listening' }).click()
  await expect(live.getByRole('status')).toHaveText(/Listening/, { timeout: 20_000 })
  const log = live.getByRole('log', { name: 'Live transcript' })
  await expect(log.locator('li.live-final .live-text').filter({ hasText: /\p{L}/u }).first()).toBeVisible({
    timeout: 60_000,
  })
  await live.getByRole('button', { name: 'Stop' }).click()
  await expect(live.getByRole('status')).toHaveText(/Stopped/, { timeout: 15_000 })

  const opened = page.waitForResponse((r) => /\/api\/transcripts\/tr_[^/]+$/.test(r.url()))
  await page
    .getByRole('region', { name: 'Saved transcripts' })
    .getByRole('button', { name: /^Open Live session / })
    .first()
    .click()
  const id = ((await (await opened).json()) as { id: string }).id
  const review = page.getByRole('region', { name: /^Live session / })
  const { turn, number } = await turnWithWords(review, 2)
  const words = turn.getByRole('group', { name: `Words of turn ${number}` }).getByRole('button')
  // Timed from the session's segments: each word inside its turn, in order.
  const turnStart = Number(await turn.getAttribute('data-start'))
  const starts = await words.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-start'))))
  expect(starts[0]).toBeGreaterThanOrEqual(turnStart - 0.01)
  expect([...starts].sort((a, b) => a - b)).toEqual(starts)
  await words.nth(1).click()
  await expect.poll(() => audioTime(page)).toBeCloseTo(starts[1] as number, 0)

  await turn.getByRole('button', { name: `Edit text of turn ${number}` }).click()
  const box = turn.getByRole('textbox', { name: `Text of turn ${number}` })
  await box.fill(`${await box.inputValue()} Zanzibar`)
  await turn.getByRole('button', { name: 'Save text' }).click()
  await expect(review.getByText('Label edits saved')).toBeVisible()
  await expect(words.last()).toHaveText('Zanzibar')
  const kept = await saved(page, id)
  expect(Object.values(kept.labels.edits.texts ?? {}).join(' ')).toContain('Zanzibar')
  expect(await downloaded(page, 'WebVTT')).toContain('Zanzibar')
})

test('two reviewers correcting at once: the second gets the conflict, and loading theirs loses neither correction', async ({
  page,
  context,
}) => {
  test.setTimeout(240_000)
  const name = 'two reviewers trn08.wav'
  await page.goto('/transcripts')
  const id = await transcribeUpload(page, name, readFileSync(RECORDING))
  const other = await context.newPage()
  await other.goto('/transcripts')
  await other
    .getByRole('region', { name: 'Saved transcripts' })
    .getByRole('button', { name: `Open ${name}` })
    .click()

  const correct = async (p: Page, number: number, text: string) => {
    const review = p.getByRole('region', { name })
    await review.getByRole('button', { name: `Edit text of turn ${number}` }).click()
    await review.getByRole('textbox', { name: `Text of turn ${number}` }).fill(text)
    await p.keyboard.press('Control+Enter')
  }
  const first = page.getByRole('region', { name })
  const second = other.getByRole('region', { name })
  await expect(second.locator('li.turn').first()).toBeVisible()
  await correct(page, 1, 'first reviewer was here')
  await expect(first.getByText('Label edits saved')).toBeVisible()
  // The second page still stands on the revision before: its save is refused, and it says so.
  await correct(other, 2, 'second reviewer was here')
  await expect(second.getByText(/saved other label edits meanwhile/)).toBeVisible()
  await second.getByRole('button', { name: 'Load their edits' }).click()
  await expect(second.getByText('Your corrections of turn 2 are kept on top of theirs.')).toBeVisible()
  await expect(second.getByText('Label edits saved')).toBeVisible()
  await expect(second.locator('li.turn').first()).toContainText('first reviewer was here')
  await expect(second.locator('li.turn').nth(1)).toContainText('second reviewer was here')
  const texts = Object.values((await saved(page, id)).labels.edits.texts ?? {})
  expect(texts.sort()).toEqual(['first reviewer was here', 'second reviewer was here'])
})
