import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test'
import Database from 'better-sqlite3'
import { e2eDataDir, e2eVoiceClipsDir } from '../playwright.config.ts'
import { expectNoSidewaysScroll, seriousViolations } from './support.ts'

/**
 * Remote consent with two browsers, against the real backend and the real local speech service: a consent
 * administrator creates a link on the voices page; the voice's owner opens it in a browser of their own (no session,
 * no account), records the phrase from the fake microphone (e2e/voices.setup.ts: the phrase spoken by eSpeak) and
 * sends it; the consent appears for the administrator, recorded remotely; the link then answers 410, as a wrong,
 * expired or revoked one does, with the same plain page.
 */

const SERVICE_WORK = 120_000
const unique = (label: string) => `${label} ${Date.now().toString(36)}`
const actor = () => (test.info().project.metadata as { actor?: string }).actor ?? 'local admin'

function region(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true })
}

function card(list: Locator, name: string): Locator {
  return list.getByRole('listitem').filter({ has: list.page().getByRole('heading', { name, exact: true }) })
}

function recordSeconds(): number {
  const { phraseSeconds } = JSON.parse(readFileSync(join(e2eVoiceClipsDir, 'clips.json'), 'utf8')) as {
    phraseSeconds: number
  }
  return 1 + phraseSeconds + 1.5
}

async function elapsedSeconds(form: Locator): Promise<number> {
  const text = (await form.getByTestId('elapsed').textContent()) ?? ''
  const match = /^(\d+):(\d\d)\.(\d)/.exec(text)
  return match ? Number(match[1]) * 60 + Number(match[2]) + Number(match[3]) / 10 : 0
}

/** The owner's own browser: a context of its own, with no session of the administrator's. */
function ownersBrowser(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ storageState: { cookies: [], origins: [] } })
}

/** Creates a link on the voices page and returns it as the administrator would copy it. */
async function createLink(page: Page, owner: string): Promise<string> {
  const requests = region(page, 'Consent requests')
  await requests.getByLabel('Name of the voice’s owner').fill(owner)
  await requests.getByLabel('Language of the recording').fill('en-US')
  await requests.getByRole('button', { name: 'Create consent link' }).click()
  const link = requests.getByRole('textbox', { name: 'Consent link' })
  await expect(link).toHaveValue(/\/consent\/[A-Za-z0-9_-]{43}$/)
  await expect(link).toHaveAttribute('readonly', '')
  await expect(card(requests, owner)).toBeVisible()
  return link.inputValue()
}

/** What an unusable link answers: 410 and the one plain page, whatever the reason. */
async function unusableAnswer(context: BrowserContext, link: string): Promise<string> {
  const res = await context.request.get(link)
  expect(res.status()).toBe(410)
  const api = await context.request.get(link.replace('/consent/', '/api/consent-links/'))
  expect(api.status()).toBe(410)
  expect(((await api.json()) as { error: { code: string } }).error.code).toBe('consent_link_unusable')
  return res.text()
}

test('a consent administrator’s link is recorded by its owner in another browser, then answers 410 (through the cluster too)', async ({
  page,
  browser,
}) => {
  test.setTimeout(5 * 60_000)
  const owner = unique('Remote owner')
  await page.goto('/voices')
  const link = await createLink(page, owner)
  expect(await seriousViolations(page)).toEqual([])

  // The owner, in a browser of their own.
  const ownerContext = await ownersBrowser(browser)
  try {
    const ownerPage = await ownerContext.newPage()
    const opened = await ownerPage.goto(link)
    expect(opened?.status()).toBe(200)
    await expect(ownerPage.getByRole('heading', { level: 1, name: 'Record your consent' })).toBeVisible()
    await expect(ownerPage.getByText(`${actor()} asks ${owner} for consent`)).toBeVisible()
    await expect(ownerPage.getByText('I am the owner of this voice and I consent to its use')).toBeVisible()
    await expect(ownerPage.getByText('en-US')).toBeVisible()
    // Nothing of the studio beyond this page: no navigation, no session.
    await expect(ownerPage.getByRole('navigation', { name: 'Main' })).toHaveCount(0)
    expect((await ownerContext.cookies()).filter((c) => c.name === 'studio_session')).toEqual([])
    expect(await seriousViolations(ownerPage)).toEqual([])

    const form = ownerPage.getByRole('group', { name: 'Consent recording' })
    await form.getByRole('button', { name: 'Record' }).click()
    await expect(form.getByRole('button', { name: 'Stop recording' })).toBeVisible()
    await expect.poll(() => elapsedSeconds(form), { timeout: 60_000 }).toBeGreaterThanOrEqual(recordSeconds())
    await form.getByRole('button', { name: 'Stop recording' }).click()
    await expect(form.getByLabel('Play back the recording')).toBeVisible()
    expect(await seriousViolations(ownerPage)).toEqual([])
    await ownerPage.getByRole('button', { name: 'Send consent' }).click()
    await expect(ownerPage.getByRole('status').filter({ hasText: 'Your consent was recorded' })).toBeVisible({
      timeout: SERVICE_WORK,
    })
    expect(await seriousViolations(ownerPage)).toEqual([])

    // The administrator sees the consent, recorded remotely; the link has left the open ones.
    const consentCard = card(region(page, 'Consents'), owner)
    await expect(consentCard).toContainText(
      `Recorded remotely by the owner through a consent link from ${actor()}`,
      { timeout: 30_000 },
    )
    await expect(consentCard).toContainText('en-US')
    await expect(card(region(page, 'Consent requests'), owner)).toHaveCount(0)

    // Used: the link answers 410 with a plain page, in the owner's browser too.
    const reused = await unusableAnswer(ownerContext, link)
    const again = await ownerPage.goto(link)
    expect(again?.status()).toBe(410)
    await expect(
      ownerPage.getByRole('heading', { level: 1, name: 'This consent link cannot be used' }),
    ).toBeVisible()

    // A wrong token answers exactly the same.
    const origin = new URL(link).origin
    const wrong = await unusableAnswer(
      ownerContext,
      `${origin}/consent/${randomBytes(32).toString('base64url')}`,
    )
    expect(wrong).toBe(reused)

    // A revoked link too: Revoke in the open links, then the owner's browser gets the same page.
    const revokedOwner = unique('Revoked owner')
    const revokedLink = await createLink(page, revokedOwner)
    await card(region(page, 'Consent requests'), revokedOwner)
      .getByRole('button', { name: `Revoke the link for ${revokedOwner}` })
      .click()
    await expect(
      region(page, 'Consent requests').getByText(`The link for “${revokedOwner}” was revoked`),
    ).toBeVisible()
    await expect(card(region(page, 'Consent requests'), revokedOwner)).toHaveCount(0)
    expect(await unusableAnswer(ownerContext, revokedLink)).toBe(reused)

    // And an expired one (the single studio's SQLite; the cluster's is PostgreSQL, tested in the http suite).
    if (test.info().project.name === 'voices') {
      const expiredOwner = unique('Expired owner')
      const expiredLink = await createLink(page, expiredOwner)
      const db = new Database(join(e2eDataDir, 'studio.db'))
      try {
        db.prepare('UPDATE consent_requests SET expires_at = ? WHERE owner_name = ?').run(
          Date.now() - 1,
          expiredOwner,
        )
      } finally {
        db.close()
      }
      expect(await unusableAnswer(ownerContext, expiredLink)).toBe(reused)
    }
  } finally {
    await ownerContext.close()
  }
})

test.describe('at 390×844 (a phone)', () => {
  test.use({ viewport: { width: 390, height: 844 } })

  test('the owner’s page and the consent requests fit a phone', async ({ page, browser }) => {
    const owner = unique('Phone owner')
    await page.goto('/voices')
    const link = await createLink(page, owner)
    await expectNoSidewaysScroll(page)
    const ownerContext = await browser.newContext({
      storageState: { cookies: [], origins: [] },
      viewport: { width: 390, height: 844 },
    })
    try {
      const ownerPage = await ownerContext.newPage()
      await ownerPage.goto(link)
      await expect(ownerPage.getByRole('heading', { level: 1, name: 'Record your consent' })).toBeVisible()
      await expect(ownerPage.getByRole('button', { name: 'Send consent' })).toBeVisible()
      await expectNoSidewaysScroll(ownerPage)
      // Keyboard alone: the recorder's button and Send consent are reached with Tab.
      await ownerPage.getByRole('radio', { name: 'Record in the browser' }).focus()
      await ownerPage.keyboard.press('Tab')
      await expect(ownerPage.getByRole('button', { name: 'Record' })).toBeFocused()
      expect(await seriousViolations(ownerPage)).toEqual([])
    } finally {
      await ownerContext.close()
    }
    await card(region(page, 'Consent requests'), owner)
      .getByRole('button', { name: `Revoke the link for ${owner}` })
      .click()
    await expect(card(region(page, 'Consent requests'), owner)).toHaveCount(0)
  })
})
