import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test'
import {
  e2eDeadUpstreamBaseURL,
  e2eNoUsersBaseURL,
  e2eSignInBaseURL,
  e2eUsers,
} from '../playwright.config.ts'
import { seriousViolations } from './support.ts'

/**
 * The app shell against the real backend: its automatic local admin session, the real health report, and (on the
 * second and third studios started by playwright.config.ts) real users signing in. Nothing is mocked.
 */

/** The script page's own status regions: the character count, the player, the line's lock, its takes, live mode. */
const SCRIPT_STATUS_REGIONS = 5

const PAGES = [
  { link: 'Script', path: '/script', heading: 'Script', statusRegions: SCRIPT_STATUS_REGIONS },
  { link: 'Voices', path: '/voices', heading: 'Voices', statusRegions: 0 },
  { link: 'Transcripts', path: '/transcripts', heading: 'Transcripts', statusRegions: 2 },
]

/** How the banner starts its sentence about each engine the speech service lacks. */
const ENGINE_PROBLEMS = {
  synthesis: 'Speech synthesis is not available',
  recognition: 'Speech recognition is not available',
  diarization: 'Speaker labels are not available',
} as const
type EngineName = keyof typeof ENGINE_PROBLEMS

interface HealthReport {
  status: 'ok' | 'degraded'
  upstream: { kind: 'embedded' | 'remote'; reachable: boolean }
  engines: Record<EngineName, boolean>
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

async function signIn(page: Page, user: { name: string; password: string }) {
  await page.getByLabel('Name').fill(user.name)
  await page.getByLabel('Password').fill(user.password)
  await page.getByLabel('Password').press('Enter')
}

async function postSignIn(request: APIRequestContext, user: { name: string; password: string }) {
  return request.post('/api/auth/sign-in', { data: { name: user.name, password: user.password } })
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
    await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
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
      // The shell adds no status region of its own: those counted are the page's.
      await expect(page.getByRole('status')).toHaveCount(target.statusRegions)
      expect(await seriousViolations(page)).toEqual([])
    })
  }
})

test.describe('health banner', () => {
  const health = async (request: APIRequestContext) => {
    const response = await request.get('/api/health')
    expect(response.ok()).toBe(true)
    return (await response.json()) as HealthReport
  }

  test('stays away while the local service offers every engine', async ({ page }) => {
    expect(await health(page.request)).toMatchObject({
      upstream: { kind: 'embedded', reachable: true },
      engines: { synthesis: true, recognition: true, diarization: true },
    })
    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
    await expect(page.getByRole('alert')).toHaveCount(0)
  })

  test.describe('on a studio whose service lacks recognition and diarization', () => {
    test.use({ baseURL: e2eSignInBaseURL })

    test('names each missing engine and its fix, as an alert, beside the one status region', async ({
      page,
    }) => {
      const report = await health(page.request)
      expect(report.upstream).toEqual({ kind: 'embedded', reachable: true })
      expect(report.engines).toEqual({ synthesis: true, recognition: false, diarization: false })

      await page.goto('/')
      await signIn(page, e2eUsers.designer)
      await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
      const alert = page.getByRole('alert')
      await expect(alert).toHaveCount(1)
      await expect(alert.locator('p')).toHaveText([
        new RegExp(`^${ENGINE_PROBLEMS.recognition}`),
        new RegExp(`^${ENGINE_PROBLEMS.diarization}`),
      ])
      await expect(alert).toContainText('install the Debian packages pocketsphinx and pocketsphinx-en-us')
      // The banner is an alert, not a status: the status regions are the Script page's own.
      await expect(page.getByRole('status')).toHaveCount(SCRIPT_STATUS_REGIONS)
      expect(await seriousViolations(page)).toEqual([])
    })
  })
})

test.describe('a studio whose speech service does not answer', () => {
  test.use({ baseURL: e2eDeadUpstreamBaseURL })

  test('says the speech service is not answering, as an alert', async ({ page }) => {
    const response = await page.request.get('/api/health')
    expect(await response.json()).toMatchObject({
      status: 'degraded',
      upstream: { kind: 'remote', reachable: false },
    })

    await page.goto('/')
    // A remote speech service never gets the automatic local admin.
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    await signIn(page, e2eUsers.designer)
    await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
    const alert = page.getByRole('alert')
    await expect(alert).toHaveText(/^The speech service set in SVC_BASE_URL is not answering/)
    await expect(alert).toContainText('Check that it is running and reachable from this machine')
    await expect(page.getByRole('status')).toHaveCount(SCRIPT_STATUS_REGIONS)
    expect(await seriousViolations(page)).toEqual([])
  })
})

test.describe('sign-in page, against a studio with real users', () => {
  test.use({ baseURL: e2eSignInBaseURL })
  const { designer, reviewer } = e2eUsers

  test('no one is signed in, and the page passes the accessibility checks', async ({ page }) => {
    expect((await page.request.get('/api/auth/me')).status()).toBe(401)
    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    await expect(page).toHaveTitle(/Sign in/)
    await expect(mainNav(page)).toHaveCount(0)
    expect(await seriousViolations(page)).toEqual([])
    // Users exist: no word about making the first one.
    await expect(page.getByRole('heading', { name: 'No one can sign in yet' })).toHaveCount(0)
  })

  test('empty fields get their errors beside the fields, tied to them', async ({ page }) => {
    const sent: string[] = []
    page.on('request', (r) => {
      if (r.url().endsWith('/api/auth/sign-in')) sent.push(r.method())
    })
    await page.goto('/')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const name = page.getByLabel('Name')
    const password = page.getByLabel('Password')
    await expect(name).toHaveAttribute('aria-invalid', 'true')
    await expect(password).toHaveAttribute('aria-invalid', 'true')
    await expect(name).toHaveAccessibleDescription('Enter your name.')
    await expect(password).toHaveAccessibleDescription('Enter your password.')
    await expect(page.getByRole('alert')).toHaveCount(0)
    expect(sent).toEqual([])
    expect(await seriousViolations(page)).toEqual([])
  })

  test('a wrong password gets the backend’s words as an alert, and the password field is cleared', async ({
    page,
  }) => {
    await page.goto('/')
    const password = page.getByLabel('Password')
    const answered = page.waitForResponse('**/api/auth/sign-in')
    await signIn(page, { name: designer.name, password: 'not the password' })
    expect((await answered).status()).toBe(401)
    await expect(page.getByRole('alert')).toHaveText('Wrong name or password.')
    await expect(password).toHaveValue('')
    await expect(password).toBeFocused()
    await expect(page.getByLabel('Name')).toHaveValue(designer.name)
    expect((await page.request.get('/api/auth/me')).status()).toBe(401)
    expect(await seriousViolations(page)).toEqual([])
  })

  test('a designer signs in, sees only Script, is refused Voices, and signs out', async ({
    page,
    request,
  }) => {
    await page.goto('/')
    await signIn(page, designer)
    const nav = mainNav(page)
    await expect(nav.getByRole('link')).toHaveText(['Script'])
    await expect(page.getByText(`Signed in as ${designer.name} (voice designer)`)).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()
    const me = await page.request.get('/api/auth/me')
    expect(me.status()).toBe(200)
    expect(await me.json()).toMatchObject({
      user: { name: designer.name, role: 'designer' },
      autoLocal: false,
    })

    // A page the role may not use says so instead of showing it, whether opened from its address or in the app.
    await page.goto('/voices')
    await expect(page.getByRole('heading', { level: 1, name: 'Voices is not open to you' })).toBeVisible()
    await expect(nav.locator('[aria-current]')).toHaveCount(0)
    await nav.getByRole('link', { name: 'Script', exact: true }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Script' })).toBeVisible()

    const session = (await page.context().cookies()).find((c) => c.name === 'studio_session')
    expect(session).toBeDefined()
    const signedOut = page.waitForResponse('**/api/auth/sign-out')
    await page.getByRole('button', { name: 'Sign out' }).click()
    expect((await signedOut).status()).toBe(204)
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    expect((await page.request.get('/api/auth/me')).status()).toBe(401)
    // The old session is gone on the server too, not only its cookie in the browser.
    const replayed = await request.get('/api/auth/me', {
      headers: { cookie: `studio_session=${session?.value}` },
    })
    expect(replayed.status()).toBe(401)
  })

  test('a reviewer sees only Transcripts', async ({ page }) => {
    await page.goto('/')
    await signIn(page, reviewer)
    await expect(mainNav(page).getByRole('link')).toHaveText(['Transcripts'])
    await expect(page.getByText(`Signed in as ${reviewer.name} (reviewer)`)).toBeVisible()
    await expect(page.getByRole('heading', { level: 1, name: 'Transcripts' })).toBeVisible()
    await page.goto('/script')
    await expect(page.getByRole('heading', { level: 1, name: 'Script is not open to you' })).toBeVisible()
  })

  // Last on purpose: it blocks the designer's sign-ins from 127.0.0.1 to this studio for a minute.
  test('after five failures a minute, even the right password is refused for a while', async ({
    page,
    request,
  }) => {
    // A successful sign-in clears this name's failures from this address, so the count starts here.
    expect((await postSignIn(request, designer)).status()).toBe(200)
    for (let i = 0; i < 5; i++) {
      expect((await postSignIn(request, { name: designer.name, password: `wrong ${i}` })).status()).toBe(401)
    }

    await page.goto('/')
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    const answered = page.waitForResponse('**/api/auth/sign-in')
    await signIn(page, designer)
    const response = await answered
    expect(response.status()).toBe(429)
    expect(Number(response.headers()['retry-after'])).toBeGreaterThan(0)
    await expect(page.getByRole('alert')).toHaveText(
      /^Too many attempts\. Wait a minute, then try again\. You can try again in (1 minute|\d+ seconds)\.$/,
    )
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
    expect((await page.request.get('/api/auth/me')).status()).toBe(401)
  })
})

test.describe('sign-in page, against a studio with a remote service and no users yet', () => {
  test.use({ baseURL: e2eNoUsersBaseURL })

  test('says how the first user is made, at phone width too', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    expect((await page.request.get('/api/auth/me')).status()).toBe(401)
    await page.goto('/')
    const note = page.getByRole('region', { name: 'No one can sign in yet' })
    await expect(note).toBeVisible()
    await expect(note.getByText('npm run users -- add YOUR-NAME --role admin')).toBeVisible()
    await expect(page.getByLabel('Name')).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await seriousViolations(page)).toEqual([])
  })
})
