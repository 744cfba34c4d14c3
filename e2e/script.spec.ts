import AxeBuilder from '@axe-core/playwright'
import { expect, type Page, test } from '@playwright/test'

interface Stats {
  state: string
  underruns: number
  framesReceived: number
  framesPlayed: number
  firstSampleAt: number | null
  peak: number
  nonSilentFrames: number
}

async function playerStats(page: Page): Promise<Stats> {
  const raw = await page.locator('[data-stats]').getAttribute('data-stats')
  return JSON.parse(raw ?? 'null') as Stats
}

test('a typed sentence streams through the backend and plays through the worklet', async ({ page }) => {
  await page.goto('/')
  await page
    .getByLabel('Text')
    .fill('The quick brown fox jumps over the lazy dog, then rests in the warm afternoon shade.')
  await page.getByRole('button', { name: 'Play' }).click()
  await expect(page.getByRole('status')).toHaveText(/Finished/, { timeout: 45_000 })

  const stats = await playerStats(page)
  expect(stats.state).toBe('ended')
  // More than two seconds of speech were synthesized and at least 90% of it left the worklet.
  expect(stats.framesReceived).toBeGreaterThan(2 * 24_000)
  expect(stats.framesPlayed).toBeGreaterThanOrEqual(0.9 * stats.framesReceived)
  expect(stats.underruns).toBe(0)
  // Not silence: loud enough, and sound in a good share of the played frames.
  expect(stats.peak).toBeGreaterThan(0.05)
  expect(stats.nonSilentFrames).toBeGreaterThan(0.3 * stats.framesPlayed)
  await expect(page.getByTestId('ttfa')).toHaveText(/^\d+ ms$/)
})

test('Stop ends playback early and leaves the player ready', async ({ page }) => {
  await page.goto('/')
  await page
    .getByLabel('Text')
    .fill('This sentence is long enough that we can stop it well before it would end on its own. '.repeat(4))
  await page.getByRole('button', { name: 'Play' }).click()
  await expect.poll(async () => (await playerStats(page))?.framesPlayed ?? 0).toBeGreaterThan(12_000)
  await page.getByRole('button', { name: 'Stop' }).click()
  await expect(page.getByRole('status')).toHaveText(/Stopped/)
  const stopped = await playerStats(page)
  expect(stopped.framesPlayed).toBeLessThan(stopped.framesReceived)
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled()
})

test('the page has no serious or critical accessibility violations', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([])
})
