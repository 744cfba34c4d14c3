import AxeBuilder from '@axe-core/playwright'
import { expect, type Locator, type Page } from '@playwright/test'

/** What several specs share: the accessibility and sideways-scroll checks, and the script page's parts. */

/**
 * Serious and critical axe violations, one line each, with `label-content-name-mismatch` on (axe-core ships it
 * off; a button whose name does not contain its visible text is a barrier for speech-input users).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze()
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

/** The script page's editor. */
export function editor(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Script', exact: true })
}

/** The script page's own transport (live mode has a Stop of its own). */
export function transport(page: Page): Locator {
  return page.getByRole('group', { name: 'Preview' })
}

export function playbackStatus(page: Page): Locator {
  return page.getByTestId('playback-status')
}

/** Opens the script page on a new script holding `lines`, so tests do not see each other's lines. */
export async function freshScript(page: Page, lines: string[]) {
  await page.goto('/script')
  await expect(editor(page)).toBeVisible()
  await page.getByRole('button', { name: 'New script' }).click()
  // A new script keeps the settings of the one open before (a designer keeps their voice): an earlier journey's model
  // must not decide this one's, so every journey starts on the default model.
  await page.getByLabel('Model', { exact: true }).first().selectOption('svc-tts-2-latest')
  await editor(page).fill(lines.join('\n'))
  await editor(page).press('Control+Home')
}

/** Plays the current line and waits until it has been heard to the end (service work on a shared machine). */
export async function playLineAndWait(page: Page, timeout = 120_000) {
  await transport(page)
    .getByRole('button', { name: /^Play line \d+$/ })
    .click()
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout })
}

/** How wide the document is against the window: wider means the page scrolls sideways. */
function widths(page: Page): Promise<{ document: number; viewport: number }> {
  return page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }))
}

/**
 * The page does not scroll sideways at its current size; if it does, the failure names the outermost elements that
 * reach past the window's right edge, which is where a fix starts.
 */
export async function expectNoSidewaysScroll(page: Page) {
  const width = page.viewportSize()?.width ?? 0
  try {
    await expect.poll(() => widths(page)).toEqual({ document: width, viewport: width })
  } catch (err) {
    const culprits = await page.evaluate((edge) => {
      const past = (el: Element) => el.getBoundingClientRect().right > edge + 1
      return [...document.querySelectorAll('body *')]
        .filter((el) => past(el) && !(el.parentElement && past(el.parentElement)))
        .slice(0, 10)
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} → ${el.getBoundingClientRect().right}px`,
        )
    }, width)
    throw new Error(`${(err as Error).message}\nReaching past the window: ${culprits.join('; ')}`)
  }
}

/**
 * Uploads a recording on the transcripts page (the count left to the service) and waits until it is transcribed and
 * saved; returns the saved transcript's id.
 */
export async function transcribeUpload(page: Page, name: string, buffer: Buffer): Promise<string> {
  await page.getByLabel('Recording', { exact: true }).setInputFiles({ name, mimeType: 'audio/wav', buffer })
  const uploaded = page.waitForResponse(
    (r) => r.url().endsWith('/api/transcripts') && r.request().method() === 'POST',
  )
  await page.getByRole('button', { name: 'Transcribe' }).click()
  const id = (await uploaded).headers()['x-transcript-id'] as string
  await expect(page.getByRole('region', { name: 'Transcribe a recording' }).getByRole('status')).toHaveText(
    /Transcribed and saved/,
    { timeout: 120_000 },
  )
  return id
}
