import { readFileSync } from 'node:fs'
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'
import { editor, freshScript, playbackStatus, playLineAndWait, transport } from './support.ts'

/**
 * The script page against the real backend and the real local speech service, in a real Chromium: markup checked as
 * it is typed, lines heard through the worklet, takes compared A/B, downloads decoded in the page, the final render,
 * live mode over the text socket, scripts kept by the backend.
 */

interface Stats {
  state: string
  underruns: number
  framesReceived: number
  framesPlayed: number
  firstSampleAt: number | null
  peak: number
  nonSilentFrames: number
}

const SERVICE_WORK = 45_000

async function playerStats(page: Page): Promise<Stats> {
  const raw = await page.locator('[data-stats]').getAttribute('data-stats')
  return JSON.parse(raw ?? 'null') as Stats
}

/** Not silence: loud enough, and sound in a good share of what was played. */
function expectHeardSpeech(stats: Stats) {
  expect(stats.framesPlayed).toBeGreaterThanOrEqual(0.9 * stats.framesReceived)
  expect(stats.peak).toBeGreaterThan(0.05)
  expect(stats.nonSilentFrames).toBeGreaterThan(0.3 * stats.framesPlayed)
}

test('markup is highlighted and checked as it is typed, and the line plays through the worklet', async ({
  page,
}) => {
  // The player's worklet is loaded on the first gesture on the page, not when Play is pressed (state/playback.ts).
  // A worklet's module load is no request the page reports, so the calls are counted where they are made.
  await page.addInitScript(() => {
    const loads: string[] = []
    Object.assign(window, { workletLoads: loads })
    const addModule = AudioWorklet.prototype.addModule
    AudioWorklet.prototype.addModule = function (url, options) {
      loads.push(String(url))
      return addModule.call(this, url, options)
    }
  })
  const playerLoads = () =>
    page.evaluate(() =>
      (window as unknown as { workletLoads: string[] }).workletLoads.filter((url) => /pcm-player/.test(url)),
    )
  await freshScript(page, [
    '[joyful] That is (((wonderful))) news, and we can start tomorrow morning! <laugh>',
    '[happy] This one is not a tag.',
  ])
  const highlight = page.locator('.mk-emotion', { hasText: '[joyful]' })
  await expect(highlight).toHaveCount(1)
  await expect(page.locator('.mk-emphasis', { hasText: 'wonderful' })).toHaveCount(1)
  await expect(page.locator('.mk-sound', { hasText: '<laugh>' })).toHaveCount(1)
  await expect(page.getByText('[happy] is not a tag: it will be spoken as words')).toBeVisible()

  // Under a 0.8 model the same markup would be read aloud.
  await page.getByLabel('Model', { exact: true }).first().selectOption('svc-tts-mini-0.8')
  await expect(
    page.getByText(/svc-tts-mini-0\.8 reads markup aloud: \[joyful\] will be spoken/),
  ).toBeVisible()
  await page.getByLabel('Model', { exact: true }).first().selectOption('svc-tts-2-latest')

  await expect.poll(playerLoads).toHaveLength(1)
  await playLineAndWait(page)
  expect(await playerLoads()).toHaveLength(1)
  const stats = await playerStats(page)
  expect(stats.state).toBe('ended')
  expect(stats.framesReceived).toBeGreaterThan(2 * 24_000)
  expect(stats.underruns).toBe(0)
  expectHeardSpeech(stats)
  await expect(page.getByTestId('ttfa')).toHaveText(/^\d+ ms$/)
  // The line became a take.
  await expect(page.getByRole('region', { name: 'Takes of Line 1' }).getByText('Complete')).toHaveCount(1)
})

test('the whole script plays line after line, marking the line being heard', async ({ page }) => {
  await freshScript(page, [
    'The first line is long enough to be heard for a few seconds before the next.',
    'The second line follows it without a gap.',
  ])
  await transport(page).getByRole('button', { name: 'Play script' }).click()
  // Each line is marked while it is heard; the second one's mark comes after the first's.
  await expect(page.locator('.line.is-active', { hasText: 'The first line' })).toHaveCount(1, {
    timeout: SERVICE_WORK,
  })
  await expect(page.locator('.line.is-active', { hasText: 'The second line' })).toHaveCount(1, {
    timeout: SERVICE_WORK,
  })
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: SERVICE_WORK })
  expectHeardSpeech(await playerStats(page))
})

test('Stop ends playback early and leaves the player ready', async ({ page }) => {
  await freshScript(page, [
    // About three minutes of speech: the service makes it at 20-30 times real time, so the stream is still
    // arriving (and the take still incomplete) when Stop is pressed half a second in.
    'This sentence is long enough that we can stop it well before it would end on its own. '.repeat(32),
  ])
  await transport(page)
    .getByRole('button', { name: /^Play line/ })
    .click()
  await expect.poll(async () => (await playerStats(page))?.framesPlayed ?? 0).toBeGreaterThan(12_000)
  await transport(page).getByRole('button', { name: 'Stop' }).click()
  await expect(playbackStatus(page)).toHaveText(/Stopped/)
  const stopped = await playerStats(page)
  expect(stopped.framesPlayed).toBeLessThan(stopped.framesReceived)
  await expect(transport(page).getByRole('button', { name: 'Stop' })).toBeDisabled()
  // A stopped stream leaves an incomplete take, offered again as a new request.
  const takes = page.getByRole('region', { name: 'Takes of Line 1' })
  await expect(takes.getByText('Incomplete', { exact: true })).toHaveCount(1)
})

test('two takes of a line compare A/B at the same position, and each downloads in every format', async ({
  page,
}) => {
  test.setTimeout(180_000)
  await freshScript(page, [
    'Every request is a fresh take, so these two will differ a little in their timing.',
  ])
  await playLineAndWait(page)
  await playLineAndWait(page)
  const takes = page.getByRole('region', { name: 'Takes of Line 1' })
  await expect(takes.getByText('Complete', { exact: true })).toHaveCount(2)

  await takes.getByRole('checkbox', { name: 'Compare Take 1' }).check()
  await takes.getByRole('checkbox', { name: 'Compare Take 2' }).check()
  const compare = takes.getByRole('group', { name: /^A\/B:/ })
  const position = compare.getByRole('slider', { name: 'Position in the comparison' })
  await compare.getByRole('button', { name: 'Play', exact: true }).click()
  await expect.poll(async () => Number(await position.inputValue())).toBeGreaterThan(0.8)
  const before = Number(await position.inputValue())
  await compare.getByRole('button', { name: /^B:/ }).click()
  await expect(compare.getByRole('button', { name: /^B:/ })).toHaveAttribute('aria-pressed', 'true')
  // Switched at the same moment: the position carries on rather than starting over.
  expect(Number(await position.inputValue())).toBeGreaterThanOrEqual(before - 0.05)
  await page.keyboard.press('a')
  await expect(compare.getByRole('button', { name: /^A:/ })).toHaveAttribute('aria-pressed', 'true')
  await compare.getByRole('button', { name: 'Pause' }).click()

  // Take 1's own length: the takes are listed newest first, and two takes of a line differ in length (each request
  // is sampled afresh), by more than the tolerance below at times.
  const head = await takes
    .locator('.take')
    .filter({ has: page.locator('.take-name', { hasText: /^Take 1$/ }) })
    .locator('.take-head')
    .textContent()
  const durationMs = Number(/(\d+\.\d) s/.exec(head ?? '')?.[1] ?? 0) * 1000
  expect(durationMs).toBeGreaterThan(2000)

  for (const format of ['wav', 'mp3', 'flac', 'aac', 'opus', 'pcm'] as const) {
    await takes.getByLabel('Download format').selectOption(format)
    const downloading = page.waitForEvent('download')
    await takes.getByRole('button', { name: /^Download take 1 as/i }).click()
    const file = await downloading
    const path = await file.path()
    const bytes = readFileSync(path)
    expect(file.suggestedFilename()).toMatch(new RegExp(`\\.${format === 'opus' ? 'opus' : format}$`))
    const seconds =
      format === 'pcm'
        ? bytes.length / 2 / 24_000
        : await page.evaluate(async (b64) => {
            const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
            const context = new OfflineAudioContext(1, 1, 24_000)
            const audio = await context.decodeAudioData(data.buffer)
            return audio.duration
          }, bytes.toString('base64'))
    // Within 10% of the take (codec priming and padding add a little).
    expect(Math.abs(seconds * 1000 - durationMs) / durationMs, format).toBeLessThan(0.1)
  }
})

test('the final render remakes a starred take as one complete file', async ({ page }) => {
  test.setTimeout(120_000)
  await freshScript(page, ['A chosen take, rendered again in one piece.'])
  await playLineAndWait(page)
  const takes = page.getByRole('region', { name: 'Takes of Line 1' })
  await takes.getByRole('button', { name: 'Star Take 1' }).click()
  await page.getByRole('button', { name: 'Final render of chosen takes' }).click()
  await expect(takes.getByText('Final render')).toHaveCount(1, { timeout: SERVICE_WORK })
  // The rendered take is the chosen one now.
  await expect(takes.getByRole('button', { name: 'Star Take 2' })).toHaveAttribute('aria-pressed', 'true')
  await expect(takes.getByRole('button', { name: 'Star Take 1' })).toHaveAttribute('aria-pressed', 'false')
})

test('live mode speaks phrases before the text is finished', async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto('/script')
  const live = page.getByLabel('Live text')
  await page.getByRole('button', { name: 'Start live' }).click()
  await live.pressSequentially('This first sentence is long enough to be sent as soon as it ends. ', {
    delay: 5,
  })
  // Audio arrives while the designer is still writing: nothing has been finished yet.
  await expect
    .poll(async () => (await playerStats(page))?.framesReceived ?? 0, { timeout: SERVICE_WORK })
    .toBeGreaterThan(24_000)
  await live.pressSequentially('And a second one follows while the first is heard.', { delay: 5 })
  await page.getByRole('button', { name: 'Finish' }).click()
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: SERVICE_WORK })
  expectHeardSpeech(await playerStats(page))
})

test('a script is kept by the backend and comes back after a reload', async ({ page }) => {
  const title = `Kept script ${Date.now()}`
  await freshScript(page, ['The first line stays.', '[sad] The second one too.'])
  await page.getByRole('textbox', { name: 'Title' }).fill(title)
  await expect(page.getByText('All changes saved')).toBeVisible()
  await page.reload()
  await expect(page.getByRole('textbox', { name: 'Title' })).toHaveValue(title)
  await expect(editor(page)).toHaveValue('The first line stays.\n[sad] The second one too.')
})

test('the page has no serious or critical accessibility violations', async ({ page }) => {
  await freshScript(page, ['[joyful] A line with (((markup))) and <laugh> a sound.'])
  await playLineAndWait(page)
  await page.getByText('Settings for this line').click()
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
  ).toEqual([])
})

test('a script saved in another browser meanwhile is never overwritten silently', async ({
  page,
  browser,
}) => {
  const title = `Shared script ${Date.now()}`
  await freshScript(page, ['Written in the first browser.'])
  await page.getByRole('textbox', { name: 'Title' }).fill(title)
  await expect(page.getByText('All changes saved')).toBeVisible()

  // The second browser opens the latest script, changes it and saves.
  const other = await browser.newPage()
  await other.goto('/script')
  await expect(other.getByRole('textbox', { name: 'Title' })).toHaveValue(title)
  await editor(other).fill('Changed in the second browser.')
  await expect(other.getByText('All changes saved')).toBeVisible()

  // The first browser's next save is refused; the designer chooses.
  await editor(page).fill('Changed in the first browser too.')
  await expect(page.getByRole('alert')).toContainText('saved in another browser')
  await page.getByRole('button', { name: 'Load the other version' }).click()
  await expect(editor(page)).toHaveValue('Changed in the second browser.')
  await expect(page.getByText('All changes saved')).toBeVisible()
  await other.close()
})
