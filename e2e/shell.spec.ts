import AxeBuilder from '@axe-core/playwright'
import { expect, type Locator, type Page, test } from '@playwright/test'

/** The app shell against the real backend's automatic local admin session, plus the sign-in page with mocked auth. */

const PAGES = [
  { link: 'Script', path: '/script', heading: 'Preview a line', statusRegions: 1 },
  { link: 'Voices', path: '/voices', heading: 'Voices', statusRegions: 0 },
  { link: 'Transcripts', path: '/transcripts', heading: 'Transcripts', statusRegions: 0 },
]

const HEALTHY = {
  status: 'ok',
  upstream: { kind: 'embedded', reachable: true },
  engines: { synthesis: true, recognition: true, diarization: true },
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze()
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

/** Presses `key` until `target` has focus; fails after `max` presses. */
async function pressUntilFocused(page: Page, target: Locator, key = 'Tab', max = 25) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key)
    if (await target.evaluate((el) => el === document.activeElement)) return
  }
  throw new Error(`${key} never reached the element`)
}

function mainNav(page: Page) {
  return page.getByRole('navigation', { name: 'Main' })
}

test.describe('signed in as the automatic local admin', () => {
  test('the main navigation shows every page and who is signed in', async ({ page }) => {
    await page.goto('/')
    const nav = mainNav(page)
    await expect(nav.getByRole('link')).toHaveText(['Script', 'Voices', 'Transcripts'])
    await expect(nav.getByRole('link', { name: 'Script', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    )
    await expect(nav.locator('[aria-current]')).toHaveCount(1)
    await expect(page.getByText('Signed in as local admin')).toBeVisible()
    // The backend would re-open a local session at once, so there is nothing to sign out of.
    await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0)
    await expect(page).toHaveTitle(/Script/)
  })

  test('the pages are reached with the keyboard alone, and Back returns', async ({ page }) => {
    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1, name: 'Preview a line' })).toBeVisible()
    const nav = mainNav(page)

    await pressUntilFocused(page, nav.getByRole('link', { name: 'Voices', exact: true }))
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(/\/voices$/)
    const voicesHeading = page.getByRole('heading', { level: 1, name: 'Voices' })
    await expect(voicesHeading).toBeVisible()
    // Focus moves to the new page's heading, so reading starts where the content changed.
    await expect(voicesHeading).toBeFocused()
    await expect(nav.getByRole('link', { name: 'Voices', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    )
    await expect(nav.getByRole('link', { name: 'Script', exact: true })).not.toHaveAttribute(
      'aria-current',
      /.*/,
    )

    await pressUntilFocused(page, nav.getByRole('link', { name: 'Transcripts', exact: true }), 'Shift+Tab')
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(/\/transcripts$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Transcripts' })).toBeFocused()

    await page.goBack()
    await expect(page).toHaveURL(/\/voices$/)
    await expect(page.getByRole('heading', { level: 1, name: 'Voices' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'Voices', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    )
  })

  test('a page opens from its address, and an unknown address says so', async ({ page }) => {
    await page.goto('/transcripts')
    await expect(page.getByRole('heading', { level: 1, name: 'Transcripts' })).toBeVisible()
    await expect(mainNav(page).getByRole('link', { name: 'Transcripts', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    )

    await page.goto('/nowhere')
    await expect(page.getByRole('heading', { level: 1, name: 'No such page' })).toBeVisible()
    await expect(mainNav(page).locator('[aria-current]')).toHaveCount(0)
    await page.getByRole('main').getByRole('link', { name: 'Voices', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Voices' })).toBeVisible()
  })

  for (const target of PAGES) {
    test(`${target.link} has no serious or critical accessibility violations`, async ({ page }) => {
      await page.goto('/')
      await mainNav(page).getByRole('link', { name: target.link, exact: true }).click()
      await expect(page).toHaveURL(new RegExp(`${target.path}$`))
      await expect(page.getByRole('heading', { level: 1, name: target.heading })).toBeVisible()
      // The shell adds no status region of its own (the Script page's tests rely on there being one).
      await expect(page.getByRole('status')).toHaveCount(target.statusRegions)
      expect(await seriousViolations(page)).toEqual([])
    })
  }
})

test.describe('health banner', () => {
  test('names a missing engine and what to do, as an alert', async ({ page }) => {
    await page.route('**/api/health', (route) =>
      route.fulfill({
        json: { ...HEALTHY, status: 'degraded', engines: { ...HEALTHY.engines, recognition: false } },
      }),
    )
    await page.goto('/')
    const alert = page.getByRole('alert')
    await expect(alert).toContainText('Speech recognition is not available')
    await expect(alert).toContainText('install the Debian packages pocketsphinx and pocketsphinx-en-us')
    expect(await seriousViolations(page)).toEqual([])
  })

  test('says the speech service is not answering', async ({ page }) => {
    await page.route('**/api/health', (route) =>
      route.fulfill({
        json: {
          status: 'degraded',
          upstream: { kind: 'embedded', reachable: false },
          engines: { synthesis: false, recognition: false, diarization: false },
        },
      }),
    )
    await page.goto('/')
    await expect(page.getByRole('alert')).toHaveText(/The local speech service is not answering/)
  })

  test('shows nothing when all is well', async ({ page }) => {
    await page.route('**/api/health', (route) => route.fulfill({ json: HEALTHY }))
    const answered = page.waitForResponse('**/api/health')
    await page.goto('/')
    await answered
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)
    await expect(page.getByRole('status')).toHaveCount(1)
  })
})

test.describe('sign-in page (auth answers mocked)', () => {
  test('errors appear beside the fields and as an alert; a designer then sees only Script', async ({
    page,
  }) => {
    const signOutHeaders: Array<string | undefined> = []
    await page.route('**/api/health', (route) => route.fulfill({ json: HEALTHY }))
    await page.route('**/api/auth/me', (route) =>
      route.fulfill({ status: 401, json: { detail: 'Not signed in.' } }),
    )
    await page.route('**/api/auth/sign-in', (route) => {
      const { password } = route.request().postDataJSON() as { name: string; password: string }
      if (password === 'right') {
        return route.fulfill({
          json: { user: { name: 'Ada', role: 'designer' }, csrfToken: 'token-123', autoLocal: false },
        })
      }
      if (password === 'again') {
        return route.fulfill({
          status: 429,
          headers: { 'retry-after': '60' },
          json: { detail: 'Too many attempts.' },
        })
      }
      return route.fulfill({ status: 401, json: { detail: 'Wrong name or password.' } })
    })
    await page.route('**/api/auth/sign-out', (route) => {
      signOutHeaders.push(route.request().headers()['x-csrf-token'])
      return route.fulfill({ status: 204 })
    })

    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    expect(await seriousViolations(page)).toEqual([])

    // Empty fields: messages beside each field, tied to it for assistive technology.
    await page.getByRole('button', { name: 'Sign in' }).click()
    const name = page.getByLabel('Name')
    const password = page.getByLabel('Password')
    await expect(name).toHaveAttribute('aria-invalid', 'true')
    await expect(name).toHaveAccessibleDescription('Enter your name.')
    await expect(password).toHaveAccessibleDescription('Enter your password.')
    expect(await seriousViolations(page)).toEqual([])

    await name.fill('Ada')
    await password.fill('wrong')
    await password.press('Enter')
    await expect(page.getByRole('alert')).toHaveText('Wrong name or password.')
    await expect(password).toHaveValue('')
    await expect(password).toBeFocused()

    await password.fill('again')
    await password.press('Enter')
    await expect(page.getByRole('alert')).toHaveText('Too many attempts. You can try again in 1 minute.')

    await password.fill('right')
    await password.press('Enter')
    const nav = mainNav(page)
    await expect(nav.getByRole('link')).toHaveText(['Script'])
    await expect(page.getByText('Signed in as Ada (voice designer)')).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Preview a line' })).toBeVisible()

    // A page the role may not use says so instead of showing it.
    await page.evaluate(() => {
      window.history.pushState(null, '', '/voices')
      window.dispatchEvent(new PopStateEvent('popstate'))
    })
    await expect(page.getByRole('heading', { level: 1, name: 'Voices is not open to you' })).toBeVisible()

    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    expect(signOutHeaders).toEqual(['token-123'])
  })
})
