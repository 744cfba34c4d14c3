import { readFileSync } from 'node:fs'
import { expect, type Page, test } from '@playwright/test'
import { e2eMeetingMicWav } from '../playwright.config.ts'
import { meetingFile } from '../server/testing/meetings.ts'
import { seriousViolations, transcribeUpload } from './support.ts'

/**
 * The transcripts page against the real backend and the real local speech service (PocketSphinx and the diarizer):
 * a real meeting recording uploaded, reviewed against its waveform, relabelled and exported; live transcription from
 * Chromium's fake microphone playing the same meeting (playwright.config.ts, project "transcripts"). Nothing is mocked.
 * The studio's automatic local admin may use every page.
 */

/** Four people in a meeting; asked for two speakers, the service finds alternating turns. */
const RECORDING = meetingFile('trn08.wav')

/** Two real people taking turns (George, Jackson, George, Jackson), joined by e2e/transcripts.setup.ts. */
const TWO_SPEAKERS = e2eMeetingMicWav.replace(/meeting-mic\.wav$/, 'two-speakers.wav')

/** Whether the page scrolls sideways: the document is wider than the viewport. */
async function sidewaysOverflow(page: Page): Promise<{ document: number; viewport: number }> {
  return page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }))
}

/** At 390 px wide (a phone), the page must not scroll sideways, and axe still finds nothing serious. */
async function fitsAPhone(page: Page): Promise<void> {
  const before = page.viewportSize()
  await page.setViewportSize({ width: 390, height: 844 })
  await expect.poll(() => sidewaysOverflow(page)).toEqual({ document: 390, viewport: 390 })
  expect(await seriousViolations(page)).toEqual([])
  if (before) await page.setViewportSize(before)
}

async function downloaded(page: Page, button: string): Promise<{ name: string; text: string }> {
  const download = page.waitForEvent('download')
  await page
    .getByRole('region', { name: 'Export' })
    .getByRole('button', { name: button, exact: true })
    .click()
  const file = await download
  return { name: file.suggestedFilename(), text: readFileSync((await file.path()) as string, 'utf8') }
}

test('a real recording is transcribed with speakers, reviewed, relabelled and exported', async ({ page }) => {
  test.setTimeout(180_000)
  await page.goto('/transcripts')
  await expect(page.getByRole('heading', { level: 1, name: 'Transcripts' })).toBeVisible()

  await page.getByLabel('Recording', { exact: true }).setInputFiles(RECORDING)
  await page.getByLabel('Exactly').check()
  await page.getByLabel('Exact number of speakers').fill('2')
  const uploaded = page.waitForResponse(
    (r) => r.url().endsWith('/api/transcripts') && r.request().method() === 'POST',
  )
  await page.getByRole('button', { name: 'Transcribe' }).click()
  const response = await uploaded
  expect(response.status()).toBe(200)
  const id = response.headers()['x-transcript-id'] as string
  expect(id).toMatch(/^tr_/)
  const upload = page.getByRole('region', { name: 'Transcribe a recording' })
  await expect(upload.getByRole('status')).toHaveText(/Transcribed and saved/, { timeout: 120_000 })
  await expect(page.getByTestId('streamed-text')).not.toHaveText(/^…?$/)

  // The review: turns beside the waveform, one coloured region per diarization span.
  const review = page.getByRole('region', { name: 'trn08.wav' })
  await expect(review.getByRole('heading', { level: 2, name: 'trn08.wav' })).toBeVisible()
  const saved = (await (await page.request.get(`/api/transcripts/${id}`)).json()) as {
    result: {
      diarization: {
        speakers: string[]
        segments: unknown[]
        turns?: Array<{ speaker: string | null; start: number | null; text: string }>
      }
    }
  }
  const { diarization } = saved.result
  expect(diarization.speakers.length).toBeGreaterThanOrEqual(2)
  const turns = diarization.turns ?? []
  expect(turns.length).toBeGreaterThan(1)
  await expect(review.locator('li.turn').first()).toBeVisible()
  await expect(page.locator('.waveform [part~="region"]')).toHaveCount(diarization.segments.length)

  // A turn's time plays the recording from the turn's start (its name says so, and holds the time shown), and the
  // turn is marked current.
  const target = review.locator('li.turn[data-start]').nth(1)
  const start = Number(await target.getAttribute('data-start'))
  const turnIndex = await target.getAttribute('data-turn')
  const seekButton = target.locator('.turn-seek')
  const shownTime = ((await seekButton.textContent()) ?? '').trim()
  expect(shownTime).toMatch(/^\d+:\d\d\.\d–\d+:\d\d\.\d$/)
  const speakerShown = await target.locator('select').inputValue()
  await expect(seekButton).toHaveAccessibleName(`Play ${shownTime}, ${speakerShown}`)
  const audioTime = () =>
    page.evaluate(() => (document.querySelector('audio') as HTMLAudioElement).currentTime)
  await seekButton.click()
  await expect(review.locator('li.turn-current')).toHaveAttribute('data-turn', turnIndex as string)
  await expect(review.getByRole('button', { name: 'Pause', exact: true })).toBeVisible()
  await expect.poll(audioTime).toBeGreaterThan(start + 0.2)
  await review.getByRole('button', { name: 'Pause', exact: true }).click()
  await expect(review.getByRole('button', { name: 'Play', exact: true })).toBeVisible()
  const paused = await audioTime()
  expect(paused).toBeGreaterThan(start)
  expect(paused).toBeLessThan(start + 10)

  // Keyboard: N goes to the next turn (focus on the list, not in a field).
  await review.getByRole('region', { name: 'Turns' }).focus()
  await page.keyboard.press('n')
  const next = turns
    .map((t) => t.start)
    .filter((s): s is number => s !== null && s > paused + 0.01)
    .sort((a, b) => a - b)[0]
  if (next !== undefined)
    await expect(page.getByTestId('playhead')).toHaveAttribute('data-seconds', next.toFixed(2))

  // Rename speaker_0; the edit is saved by the backend, apart from the service's result.
  const speaker0 = turns.find((t) => t.speaker === 'speaker_0')
  expect(speaker0).toBeDefined()
  await page.getByLabel('Name for speaker_0').fill('Interviewer')
  await page.getByLabel('Name for speaker_0').press('Enter')
  await expect(review.getByRole('region', { name: 'Speakers', exact: true }).getByRole('status')).toHaveText(
    /Label edits saved/,
  )
  const after = (await (await page.request.get(`/api/transcripts/${id}`)).json()) as typeof saved & {
    labels: { edits: { names: Record<string, string> }; revision: number }
  }
  expect(after.labels.edits.names).toEqual({ speaker_0: 'Interviewer' })
  expect(after.result).toEqual(saved.result)

  // Exports carry the new name: SRT cues and WebVTT voice spans.
  const srt = await downloaded(page, 'SRT')
  expect(srt.name).toBe('trn08.srt')
  const cues = srt.text.trim().split('\n\n')
  // Turns are cut into cues of at most 7 s and two lines of 42 characters (docs/transcription.md, "Subtitles").
  expect(cues.length).toBeGreaterThanOrEqual(turns.filter((t) => t.text.trim()).length)
  for (const [i, cue] of cues.entries()) {
    expect(cue).toMatch(
      new RegExp(`^${i + 1}\\n\\d\\d:\\d\\d:\\d\\d,\\d{3} --> \\d\\d:\\d\\d:\\d\\d,\\d{3}\\n.+`),
    )
    const lines = cue.split('\n').slice(2)
    expect(lines.length).toBeLessThanOrEqual(2)
    for (const line of lines) if (line.length > 42) expect(line.replace(/^[^:]+: /, '')).not.toContain(' ')
  }
  expect(srt.text).toContain('Interviewer: ')
  expect(srt.text).not.toContain('speaker_0')
  const vtt = await downloaded(page, 'WebVTT')
  expect(vtt.name).toBe('trn08.vtt')
  expect(vtt.text.startsWith('WEBVTT\n\n')).toBe(true)
  expect(vtt.text).toMatch(/\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}\n<v Interviewer>[^<]+<\/v>/)
  expect(vtt.text).not.toContain('<v speaker_0>')

  expect(await seriousViolations(page)).toEqual([])
  // Label in name (WCAG 2.5.3): each player and turn button's accessible name holds the text it shows ("−5 s" was
  // named "Back 5 seconds", the turn's time "Play from …" without its end).
  const buttons = review.locator('.player-controls button, li.turn button')
  expect(await buttons.count()).toBeGreaterThan(5)
  for (const button of await buttons.all()) {
    const shown = (await button.innerText()).trim().replace(/\s+/g, ' ')
    await expect(button).toHaveAccessibleName(new RegExp(shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  }
  await fitsAPhone(page)

  // Reopened later from the saved list, with its audio and the edits.
  await page.reload()
  const list = page.getByRole('region', { name: 'Saved transcripts' })
  await list.getByRole('button', { name: 'Open trn08.wav' }).first().click()
  await expect(page.getByLabel('Name for speaker_0')).toHaveValue('Interviewer')
  const audio = await page.request.get(`/api/transcripts/${id}/audio`)
  expect((await audio.body()).equals(readFileSync(RECORDING))).toBe(true)
})

test('two people taking turns: two speakers, several turns; a turn split at the playhead is given to the other and kept', async ({
  page,
}) => {
  test.setTimeout(180_000)
  await page.goto('/transcripts')
  await fitsAPhone(page)

  // The count is left to the service ("Any number").
  const id = await transcribeUpload(page, 'two-speakers.wav', readFileSync(TWO_SPEAKERS))
  type Saved = {
    result: {
      diarization: {
        speakers: string[]
        segments: Array<{ start: number; end: number; speaker: string }>
        turns: Array<{ speaker: string | null; start: number | null; end: number | null; text: string }>
      }
    }
    labels: {
      edits: { splits?: Record<string, Array<{ at: number; speaker: string | null }>> }
      revision: number
    }
  }
  const saved = (await (await page.request.get(`/api/transcripts/${id}`)).json()) as Saved
  const { speakers, segments, turns } = saved.result.diarization
  expect(speakers).toEqual(['speaker_0', 'speaker_1'])
  expect(turns.length).toBeGreaterThanOrEqual(3)
  // The turns follow the alternation: no two neighbours share a speaker.
  for (let i = 1; i < turns.length; i++) expect(turns[i]?.speaker).not.toBe(turns[i - 1]?.speaker)

  const review = page.getByRole('region', { name: 'two-speakers.wav', exact: true })
  await expect(review.getByText(/· 2 speakers ·/)).toBeVisible()
  await expect(review.locator('li.turn')).toHaveCount(turns.length)
  await expect(review.getByLabel('Name for speaker_0')).toBeVisible()
  await expect(review.getByLabel('Name for speaker_1')).toBeVisible()
  const regions = page.locator('.waveform [part~="region"]')
  await expect(regions).toHaveCount(segments.length)

  // Clicking the waveform inside a coloured span seeks to the time clicked, not to the span's start (issue 24).
  const spans = [...segments].sort((a, b) => a.start - b.start)
  const longest = spans.reduce(
    (best, s, i) =>
      s.end - s.start > (spans[best] as typeof s).end - (spans[best] as typeof s).start ? i : best,
    0,
  )
  const span = spans[longest] as (typeof spans)[number]
  const owner = turns.findIndex(
    (t) => t.start !== null && t.end !== null && t.start <= span.start + 0.5 && t.end >= span.end - 0.5,
  )
  expect(owner).toBeGreaterThanOrEqual(0)
  const box = await regions.nth(longest).boundingBox()
  if (!box) throw new Error('the span is not drawn')
  await regions.nth(longest).click({ position: { x: box.width * 0.6, y: box.height / 2 } })
  const clicked = span.start + (span.end - span.start) * 0.6
  const playhead = async () => Number(await page.getByTestId('playhead').getAttribute('data-seconds'))
  await expect.poll(playhead).toBeGreaterThan(span.start + 1)
  expect(Math.abs((await playhead()) - clicked)).toBeLessThan(0.3)
  const at = await playhead()

  // Split the turn there; the part after the playhead goes to the other speaker (offered first).
  const split = review.getByRole('region', { name: 'Split a turn' })
  const ownSpeaker = turns[owner]?.speaker as string
  const other = ownSpeaker === 'speaker_0' ? 'speaker_1' : 'speaker_0'
  await expect(split.getByText(new RegExp(`in turn ${owner + 1} \\(${ownSpeaker}\\)`))).toBeVisible()
  await expect(split.getByLabel('Give the part after the playhead to')).toHaveValue(other)
  await split.getByRole('button', { name: 'Split at playhead' }).click()
  await expect(review.locator('li.turn')).toHaveCount(turns.length + 1)
  const part = review.locator(`li.turn[data-turn="${owner}"][data-part="1"]`)
  await expect(part.locator('select')).toHaveValue(other)
  expect(Math.abs(Number(await part.getAttribute('data-start')) - at)).toBeLessThan(0.1)
  await expect(review.locator(`li.turn[data-turn="${owner}"]:not([data-part]) select`)).toHaveValue(
    ownSpeaker,
  )
  await expect(split.getByRole('status')).toHaveText(new RegExp(`Turn ${owner + 1} split at .*${other}`))
  await expect(review.getByText('Label edits saved')).toBeVisible()
  // The waveform shows the split: one more region, the piece after the point in the other speaker's colour.
  await expect(regions).toHaveCount(segments.length + 1)

  // Undo takes it back (Ctrl+Z); S splits again from the keyboard.
  await review.getByRole('region', { name: 'Turns' }).focus()
  await page.keyboard.press('Control+z')
  await expect(review.locator('li.turn')).toHaveCount(turns.length)
  await expect(review.getByRole('button', { name: 'Undo' })).toBeDisabled()
  await page.keyboard.press('s')
  await expect(review.locator('li.turn')).toHaveCount(turns.length + 1)
  await expect(part.locator('select')).toHaveValue(other)
  await expect(review.getByText('Label edits saved')).toBeVisible()
  expect(await seriousViolations(page)).toEqual([])

  // Saved by the backend apart from the result, which is unchanged.
  const after = (await (await page.request.get(`/api/transcripts/${id}`)).json()) as Saved
  expect(after.result).toEqual(saved.result)
  const points = after.labels.edits.splits?.[String(owner)] ?? []
  expect(points).toHaveLength(1)
  expect(points[0]?.speaker).toBe(other)
  expect(Math.abs((points[0]?.at ?? 0) - at)).toBeLessThan(0.1)

  // Reloaded and reopened, the split is kept.
  await page.reload()
  await page
    .getByRole('region', { name: 'Saved transcripts' })
    .getByRole('button', { name: 'Open two-speakers.wav' })
    .first()
    .click()
  await expect(review.locator('li.turn')).toHaveCount(turns.length + 1)
  await expect(part.locator('select')).toHaveValue(other)
  await expect(regions).toHaveCount(segments.length + 1)
  await fitsAPhone(page)
})

test('a file that is not a recording, and impossible speaker counts, are refused before sending', async ({
  page,
}) => {
  const posts: string[] = []
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith('/api/transcripts')) posts.push(r.url())
  })
  await page.goto('/transcripts')
  const file = page.getByLabel('Recording', { exact: true })
  await file.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
  await expect(file).toHaveAttribute('aria-invalid', 'true')
  await expect(file).toHaveAccessibleDescription(/not a recording the service reads/)
  await file.setInputFiles(RECORDING)
  await page.getByLabel('Between').check()
  await page.getByLabel('Fewest speakers').fill('5')
  await page.getByLabel('Most speakers').fill('2')
  await page.getByRole('button', { name: 'Transcribe' }).click()
  await expect(page.getByLabel('Most speakers')).toHaveAccessibleDescription(
    'The maximum (2) is below the minimum (5).',
  )
  await page.getByLabel('Fewest speakers').fill('21')
  await page.getByLabel('Most speakers').fill('')
  await page.getByRole('button', { name: 'Transcribe' }).click()
  await expect(page.getByLabel('Fewest speakers')).toHaveAccessibleDescription(/from 1 to 20/)
  expect(posts).toEqual([])
  expect(await seriousViolations(page)).toEqual([])
})

test('live transcription from the microphone shows words and each turn’s speaker', async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto('/transcripts')
  const live = page.getByRole('region', { name: 'Live from the microphone' })
  await live.getByLabel('At most this many speakers').fill('4')
  await live.getByRole('button', { name: 'Start listening' }).click()
  await expect(live.getByRole('status')).toHaveText(/Listening/, { timeout: 20_000 })
  await expect(page.getByTestId('live-diarization')).toHaveAttribute('data-status', 'active')
  await expect(page.getByTestId('live-diarization')).toHaveText(/Speaker labels: active/)
  // Words come first, then the turn's speaker when its speakers event arrives.
  const log = live.getByRole('log', { name: 'Live transcript' })
  await expect(log.locator('li.live-final').first()).toBeVisible({ timeout: 60_000 })
  await expect(log.locator('li[data-speaker^="speaker_"]').first()).toBeVisible({ timeout: 30_000 })
  await expect(log.locator('li[data-speaker^="speaker_"] .live-speaker').first()).toHaveText(/^speaker_\d+$/)
  expect(((await log.locator('li.live-final .live-text').first().textContent()) ?? '').trim()).not.toBe('')
  expect(await seriousViolations(page)).toEqual([])
  await live.getByRole('button', { name: 'Stop' }).click()
  await expect(live.getByRole('status')).toHaveText(/Stopped/, { timeout: 15_000 })
  // Stop ends cleanly: no refused commit shown, and no row without words.
  await expect(live.getByText(/no speech in the buffer/)).toHaveCount(0)
  await expect(log.locator('li .live-text').filter({ hasText: /^…$/ })).toHaveCount(0)

  // The backend kept the session, with its audio, among the saved transcripts.
  const list = page.getByRole('region', { name: 'Saved transcripts' })
  const openLive = list.getByRole('button', { name: /^Open Live session / }).first()
  await expect(openLive).toBeVisible()
  await openLive.click()
  await expect(page.locator('li.turn').first()).toBeVisible()
  await fitsAPhone(page)
})

test('live transcription without speaker labels shows words while the turn is still going on', async ({
  page,
}) => {
  test.setTimeout(120_000)
  await page.goto('/transcripts')
  const live = page.getByRole('region', { name: 'Live from the microphone' })
  await live.getByLabel('Label speakers (diarization)').uncheck()
  await live.getByRole('button', { name: 'Start listening' }).click()
  await expect(live.getByRole('status')).toHaveText(/Listening/, { timeout: 20_000 })
  // A row with words that is not yet final: the words came before the turn ended (issue 20).
  const log = live.getByRole('log', { name: 'Live transcript' })
  await expect(log.locator('li.live-partial .live-text').filter({ hasText: /\p{L}/u }).first()).toBeVisible({
    timeout: 60_000,
  })
  await live.getByRole('button', { name: 'Stop' }).click()
  await expect(live.getByRole('status')).toHaveText(/Stopped/, { timeout: 15_000 })
  await expect(live.getByText(/no speech in the buffer/)).toHaveCount(0)
})
