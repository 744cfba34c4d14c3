import { execSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, expect, type Locator, type Page, test } from '@playwright/test'
import { e2eSignInBaseURL } from '../playwright.config.ts'
import { editor, freshScript, playLineAndWait, transport } from './support.ts'

/**
 * Take history against the real backend and the real local speech service, in a real Chromium: a take survives a
 * reload, follows its designer to a second browser and stays hidden from another designer; renames, stars and
 * deletions persist. Runs on the studio with real users (playwright.config.ts), with two designers of its own made
 * by the real users CLI. Also the script page's rough edges of issue 24 that need the real player.
 */

/** The studio with real users keeps its state here (playwright.config.ts: the port after E2E_PORT). */
const signInDataDir = join(tmpdir(), `speech-studio-e2e-${Number(process.env.E2E_PORT ?? 8181) + 1}`)
const tara = { name: 'tara', password: 'takes designer password 1' }
const tomas = { name: 'tomas', password: 'takes designer password 2' }

function addDesigner(user: { name: string; password: string }) {
  try {
    execSync(`npm run --silent users -- add ${user.name} --role designer --data ${signInDataDir}`, {
      input: `${user.password}\n`,
      stdio: ['pipe', 'ignore', 'pipe'],
    })
  } catch (err) {
    // Made by an earlier run against the same studio.
    if (!String((err as { stderr?: Buffer }).stderr ?? '').includes('exists')) throw err
  }
}

function takesOfLine1(page: Page): Locator {
  return page.getByRole('region', { name: 'Takes of Line 1' })
}

async function signedIn(browser: Browser, user: { name: string; password: string }, baseURL: string) {
  const context = await browser.newContext({ baseURL })
  const page = await context.newPage()
  await page.goto('/')
  await page.getByLabel('Name').fill(user.name)
  await page.getByLabel('Password').fill(user.password)
  await page.getByLabel('Password').press('Enter')
  await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
  return page
}

test.describe('take history', () => {
  test.beforeAll(() => {
    addDesigner(tara)
    addDesigner(tomas)
  })

  test('a take survives a reload, follows its designer to a second browser, and no one else sees it', async ({
    browser,
  }) => {
    const a = await signedIn(browser, tara, e2eSignInBaseURL)
    await freshScript(a, ['This take is kept by the studio.'])
    const stored = a.waitForResponse(
      (r) => r.request().method() === 'POST' && /\/api\/scripts\/scr_[0-9a-f]+\/takes$/.test(r.url()),
    )
    await playLineAndWait(a)
    const created = (await (await stored).json()) as { take: { id: string; script_id: string } }
    expect((await stored).status()).toBe(201)
    await expect(takesOfLine1(a).locator('li.take[data-stored="true"]')).toHaveCount(1)

    // A reload brings it back, audio and all.
    await a.reload()
    await expect(editor(a)).toHaveValue('This take is kept by the studio.')
    const list = takesOfLine1(a)
    await expect(list.getByRole('listitem')).toHaveCount(1)
    await expect(list.getByText('Complete')).toHaveCount(1)
    await list.getByRole('button', { name: 'Play take 1' }).click()
    await expect(list.getByRole('button', { name: 'Pause take 1' })).toBeVisible()
    await list.getByRole('button', { name: 'Pause take 1' }).click()

    // Rename and star it; both reach the backend.
    const renamed = a.waitForResponse((r) => r.request().method() === 'PATCH' && r.ok())
    await list.getByRole('button', { name: 'Rename take 1' }).click()
    await list.getByRole('textbox', { name: 'New name for take 1' }).fill('Keeper')
    await list.getByRole('button', { name: 'Save name' }).click()
    await renamed
    const starred = a.waitForResponse((r) => r.request().method() === 'PATCH' && r.ok())
    await list.getByRole('button', { name: 'Star Keeper' }).click()
    await starred

    // The same designer in a second browser: the script opens with its take, renamed and starred.
    const b = await signedIn(browser, tara, e2eSignInBaseURL)
    await b.goto('/script')
    await expect(editor(b)).toHaveValue('This take is kept by the studio.')
    const listB = takesOfLine1(b)
    await expect(listB.getByRole('button', { name: 'Star Keeper' })).toHaveAttribute('aria-pressed', 'true')
    await expect(b.getByRole('button', { name: 'Download chosen takes' })).toBeEnabled()

    // Another designer sees neither the script nor the take, and cannot fetch or change it.
    const c = await signedIn(browser, tomas, e2eSignInBaseURL)
    await c.goto('/script')
    await expect(editor(c)).not.toHaveValue('This take is kept by the studio.')
    await expect(takesOfLine1(c).getByText('No takes yet.')).toBeVisible()
    expect((await c.request.get(`/api/takes/${created.take.id}/audio`)).status()).toBe(404)
    expect((await c.request.get(`/api/scripts/${created.take.script_id}/takes`)).status()).toBe(404)

    // Deleted in the second browser: gone after a reload of the first.
    const deleted = b.waitForResponse((r) => r.request().method() === 'DELETE' && r.status() === 204)
    await listB.getByRole('button', { name: 'Delete Keeper' }).click()
    await deleted
    await a.reload()
    await expect(editor(a)).toHaveValue('This take is kept by the studio.')
    await expect(takesOfLine1(a).getByText('No takes yet.')).toBeVisible()
    for (const page of [a, b, c]) await page.context().close()
  })
})

test.describe('script page rough edges', () => {
  test('the Playback panel and the take show the same time to first audio', async ({ page }) => {
    await freshScript(page, ['One figure for one play, wherever it is shown.'])
    await playLineAndWait(page)
    const panel = await page.getByTestId('ttfa').textContent()
    expect(panel).toMatch(/^\d+ ms$/)
    await expect(takesOfLine1(page).getByTestId('take-ttfa')).toHaveText(`Time to first audio ${panel}`)
  })

  test('Play script on an empty script is disabled and says why', async ({ page }) => {
    await freshScript(page, [''])
    const play = transport(page).getByRole('button', { name: 'Play script' })
    await expect(play).toBeDisabled()
    await expect(play).toHaveAccessibleDescription('Write a line to play the script.')
    await editor(page).fill('Now there is something to play.')
    await expect(play).toBeEnabled()
  })
})
