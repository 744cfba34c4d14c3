import { readFileSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { meetingFile } from '../server/testing/meetings.ts'

/**
 * The transcripts page against the real backend and the real local speech service (PocketSphinx and the diarizer):
 * a real meeting recording uploaded, reviewed against its waveform, relabelled and exported; live transcription from
 * Chromium's fake microphone playing the same meeting (playwright.config.ts, project "transcripts"). Nothing is mocked.
 * The studio's automatic local admin may use every page.
 */

/** Four people in a meeting; asked for two speakers, the service finds alternating turns. */
const RECORDING = meetingFile('trn08.wav')

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze()
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
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

  // Clicking a turn moves the playhead to its start, and the turn is marked current.
  const target = review.locator('li.turn[data-start]').nth(1)
  const start = Number(await target.getAttribute('data-start'))
  const turnIndex = await target.getAttribute('data-turn')
  await target.locator('.turn-seek').click()
  await expect
    .poll(() => page.evaluate(() => (document.querySelector('audio') as HTMLAudioElement).currentTime))
    .toBeCloseTo(start, 1)
  await expect(page.getByTestId('playhead')).toHaveAttribute('data-seconds', start.toFixed(2))
  await expect(review.locator('li.turn-current')).toHaveAttribute('data-turn', turnIndex as string)

  // Keyboard: N goes to the next turn (focus on the list, not in a field).
  await review.getByRole('region', { name: 'Turns' }).focus()
  await page.keyboard.press('n')
  const next = turns
    .map((t) => t.start)
    .filter((s): s is number => s !== null && s > start + 0.01)
    .sort((a, b) => a - b)[0]
  if (next !== undefined)
    await expect(page.getByTestId('playhead')).toHaveAttribute('data-seconds', next.toFixed(2))

  // Rename speaker_0; the edit is saved by the backend, apart from the service's result.
  const speaker0 = turns.find((t) => t.speaker === 'speaker_0')
  expect(speaker0).toBeDefined()
  await page.getByLabel('Name for speaker_0').fill('Interviewer')
  await page.getByLabel('Name for speaker_0').press('Enter')
  await expect(review.getByRole('status')).toHaveText(/Label edits saved/)
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

  // Reopened later from the saved list, with its audio and the edits.
  await page.reload()
  const list = page.getByRole('region', { name: 'Saved transcripts' })
  await list.getByRole('button', { name: 'Open trn08.wav' }).first().click()
  await expect(page.getByLabel('Name for speaker_0')).toHaveValue('Interviewer')
  const audio = await page.request.get(`/api/transcripts/${id}/audio`)
  expect((await audio.body()).equals(readFileSync(RECORDING))).toBe(true)
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
})
