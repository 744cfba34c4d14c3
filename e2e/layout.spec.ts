import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, type Locator, type Page, test } from '@playwright/test'
import { e2eVoiceClipsDir } from '../playwright.config.ts'
import { editor, expectNoSidewaysScroll, seriousViolations } from './support.ts'
import { CLIP_FILES } from './voice-clips.ts'

/**
 * The studio layout (issue 24), in a real Chromium against the real backend and local speech service, as the
 * automatic local admin: at 1280×800 the script page shows the editor, the transport and the current line's takes
 * together without scrolling, with its settings pane whole; at 390×844 the script and voices pages never scroll
 * sideways, in the states their journeys reach; axe finds nothing serious or critical at either size. Each test leaves
 * full-page screenshots in test-results/screenshots/<page>-<width>.png (git-ignored) for whoever changes the layout
 * next. The voices page's recorder at 390×844 (recording, recorded, playing back, refused, saving) is driven in
 * e2e/voices.spec.ts, whose project has the fake microphone.
 */

const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }
const SERVICE_WORK = 120_000
const SCREENSHOTS = join('test-results', 'screenshots')

/** The voices page's audio, made with eSpeak like e2e/voices.setup.ts does, in a directory of this file's own. */
const clipsDir = `${e2eVoiceClipsDir}-layout`
const clip = (file: string) => join(clipsDir, file)

async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true })
  const width = page.viewportSize()?.width
  await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true })
}

/** Whether the whole of `locator` is inside the window as it is now (nothing scrolled, nothing cut). */
async function expectInView(page: Page, locator: Locator, what: string) {
  const box = await locator.boundingBox()
  const view = page.viewportSize()
  expect(box, `${what} is laid out`).not.toBeNull()
  if (!box || !view) return
  const where = `${what} at x ${box.x}–${box.x + box.width}, y ${box.y}–${box.y + box.height}`
  expect(box.x, where).toBeGreaterThanOrEqual(0)
  expect(box.y, where).toBeGreaterThanOrEqual(0)
  expect(box.x + box.width, where).toBeLessThanOrEqual(view.width)
  expect(box.y + box.height, where).toBeLessThanOrEqual(view.height)
}

function playLineButton(page: Page): Locator {
  return page.getByRole('group', { name: 'Preview' }).getByRole('button', { name: /^Play line \d+$/ })
}

/** A new script with one line, played once, so the line has a take. */
async function scriptWithATake(page: Page) {
  await page.goto('/script')
  await expect(editor(page)).toBeVisible()
  await page.getByRole('button', { name: 'New script' }).click()
  await editor(page).fill(
    '[joyful] A line played once, so that the layout shows its take.\nAnd a second line.',
  )
  await editor(page).press('Control+Home')
  await playLineButton(page).click()
  await expect(page.getByTestId('playback-status')).toHaveText(/Finished/, { timeout: SERVICE_WORK })
  await expect(page.getByRole('region', { name: 'Takes of Line 1' }).getByText('Complete')).toHaveCount(1)
}

test('at 1280×800 the script page shows the editor, Play and the line’s takes together, and its settings whole', async ({
  page,
}) => {
  test.setTimeout(SERVICE_WORK + 60_000)
  await page.setViewportSize(DESKTOP)
  await scriptWithATake(page)
  // As a designer finds it after playing: nothing scrolled.
  await page.evaluate(() => window.scrollTo(0, 0))
  expect(await page.evaluate(() => window.scrollY)).toBe(0)

  await expectInView(page, editor(page), 'the editor')
  await expectInView(page, playLineButton(page), 'Play line')
  await expectInView(
    page,
    page.getByRole('group', { name: 'Preview' }).getByRole('button', { name: 'Stop' }),
    'Stop',
  )
  await expectInView(page, page.getByTestId('ttfa'), 'time to first audio')
  await expectInView(page, page.getByRole('region', { name: 'Takes of Line 1' }), 'the takes of line 1')
  // The settings pane fits the window: its top and bottom edges are on screen (its form scrolls inside it).
  await expectInView(page, page.getByRole('complementary', { name: 'Voice and settings' }), 'the settings')

  // The transport is the next stop after the editor for the keyboard (the line has no markup notes to list between).
  await editor(page).focus()
  await page.keyboard.press('Tab')
  await expect(playLineButton(page)).toBeFocused()

  await expectNoSidewaysScroll(page)
  expect(await seriousViolations(page)).toEqual([])
  await screenshot(page, 'script')
})

test('at 390×844 the script page does not scroll sideways, with a take and the line’s settings open', async ({
  page,
}) => {
  test.setTimeout(SERVICE_WORK + 60_000)
  await page.setViewportSize(PHONE)
  await scriptWithATake(page)
  await page.getByText('Settings for this line').click()
  await page.getByText('Reference clip for this line').click()
  await expectNoSidewaysScroll(page)
  expect(await seriousViolations(page)).toEqual([])
  await screenshot(page, 'script')
})

test.describe('the voices page', () => {
  test.beforeAll(() => {
    test.setTimeout(180_000)
    execFileSync('npx', ['tsx', 'e2e/voice-clips.ts', clipsDir], { stdio: 'inherit' })
  })

  test('at both sizes, with a consent, a saved voice, the activity table and the revoke dialog', async ({
    page,
  }) => {
    test.setTimeout(6 * 60_000)
    const owner = `Layout owner ${Date.now().toString(36)}`
    const voiceName = `Layout voice ${Date.now().toString(36)}`
    await page.setViewportSize(DESKTOP)
    await page.goto('/voices')
    await expect(page.getByRole('heading', { level: 1, name: 'Voices' })).toBeVisible()

    // A consent through the API (recording one needs a microphone: e2e/voices.spec.ts does that), then a voice
    // through the form, as the journey makes them.
    const me = await page.request.get('/api/auth/me')
    const { csrfToken } = (await me.json()) as { csrfToken: string }
    const res = await page.request.post('/api/v1/audio/voice_consents', {
      headers: { 'x-csrf-token': csrfToken },
      multipart: {
        name: owner,
        language: 'en-US',
        recording: {
          name: 'consent.wav',
          mimeType: 'audio/wav',
          buffer: readFileSync(clip(CLIP_FILES.consent)),
        },
      },
      timeout: SERVICE_WORK,
    })
    expect(res.status(), await res.text()).toBe(200)
    await page.reload()
    const voiceForm = page.getByRole('region', { name: 'Create a saved voice', exact: true })
    await voiceForm.getByLabel('Voice name').fill(voiceName)
    const consentSelect = voiceForm.getByLabel('Consent of the person in the sample')
    const option = consentSelect.locator('option', { hasText: owner })
    await expect(option).toHaveCount(1)
    await consentSelect.selectOption((await option.getAttribute('value')) ?? '')
    await voiceForm.getByRole('radio', { name: 'Upload a file' }).check()
    await voiceForm.getByLabel('Audio file').setInputFiles(clip(CLIP_FILES.sameSpeaker))
    await voiceForm.getByRole('button', { name: 'Save voice' }).click()
    await expect(voiceForm.getByText(`Voice “${voiceName}” saved`)).toBeVisible({ timeout: SERVICE_WORK })
    await expect(page.getByRole('region', { name: 'Activity', exact: true }).getByRole('table')).toBeVisible()

    await expectNoSidewaysScroll(page)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'voices')

    // Both a window made narrow and a page opened on a phone (the two lay out differently on first render).
    await page.setViewportSize(PHONE)
    await expectNoSidewaysScroll(page)
    await page.reload()
    await expect(page.getByRole('region', { name: 'Activity', exact: true }).getByRole('table')).toBeVisible()
    await expectNoSidewaysScroll(page)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'voices')

    // The revoke dialog on a phone, then the consent revoked so the studio's other tests do not meet it.
    const consentCard = page
      .getByRole('region', { name: 'Consents', exact: true })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: owner, exact: true }) })
    await consentCard.getByRole('button', { name: `Revoke ${owner}` }).click()
    await expect(page.getByRole('dialog')).toBeVisible()
    await expectNoSidewaysScroll(page)
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke consent and voices' }).click()
    await expect(consentCard).toHaveCount(0, { timeout: SERVICE_WORK })
  })
})
