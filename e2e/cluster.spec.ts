import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { type Browser, expect, type Page, test } from '@playwright/test'
import { e2eClusterBackends, e2eClusterUsersEnv } from '../playwright.config.ts'

/**
 * What only a cluster can get wrong, in a real Chromium against two studio backends and two speech instances on one
 * PostgreSQL and one Redis (scripts/local-cluster.ts): a password changed through the users CLI ends the user's
 * sessions on every backend; failed sign-ins spread over the backends count together; a script saved through one
 * backend and edited in another browser through the other meets the 409, never a silent overwrite. The journeys
 * themselves run through the cluster's front in the `cluster` projects (playwright.config.ts).
 */

const run = promisify(execFile)
const [backendA, backendB] = e2eClusterBackends as [string, string]

/** The real users CLI on the cluster's database, the password piped in. */
async function usersCli(args: string[], password?: string) {
  const cli = run('npx', ['tsx', 'server/studio/auth/users-cli.ts', ...args], {
    env: { ...process.env, ...e2eClusterUsersEnv },
    timeout: 120_000,
  })
  cli.child.stdin?.end(password === undefined ? '' : `${password}\n`)
  return (await cli).stdout
}

/** A new user for one test, so tests and runs never share a name or its sign-in count. */
async function newUser(role: string) {
  const user = { name: `${role}_${Date.now().toString(36)}`, password: `${role} long password 1` }
  await usersCli(['add', user.name, '--role', role], user.password)
  return user
}

/** A browser of its own (no admin session) opened on one backend. */
async function browserOn(browser: Browser, baseURL: string) {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } })
  return context.newPage()
}

async function signIn(page: Page, user: { name: string; password: string }) {
  await page.goto('/')
  await page.getByLabel('Name').fill(user.name)
  await page.getByLabel('Password').fill(user.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

async function signedIn(page: Page, user: { name: string; password: string }) {
  await signIn(page, user)
  await expect(page.getByText(`Signed in as ${user.name}`)).toBeVisible()
}

const status = async (page: Page, base: string) => (await page.request.get(`${base}/api/auth/me`)).status()

test('a password changed through the users CLI signs the user out of every backend, through the cluster', async ({
  browser,
}) => {
  test.setTimeout(180_000)
  const user = await newUser('designer')
  const page = await browserOn(browser, backendA)
  await signedIn(page, user)
  // One session, valid on both backends.
  expect(await status(page, backendA)).toBe(200)
  expect(await status(page, backendB)).toBe(200)

  expect(await usersCli(['passwd', user.name], 'the next long password')).toMatch(/sessions are ended/)
  expect(await status(page, backendA)).toBe(401)
  expect(await status(page, backendB)).toBe(401)
  await page.goto(`${backendB}/script`)
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
  await page.context().close()
})

test('five failed sign-ins spread over both backends lock the name on either, through the cluster', async ({
  browser,
}) => {
  test.setTimeout(180_000)
  const user = await newUser('reviewer')
  const page = await browserOn(browser, backendB)
  for (let i = 0; i < 5; i++) {
    const answer = await page.request.post(`${i % 2 ? backendB : backendA}/api/auth/sign-in`, {
      data: { name: user.name, password: `wrong guess ${i}` },
    })
    expect(answer.status()).toBe(401)
  }
  // The sixth, with the right password, on the backend that saw only two of the five: refused, said plainly.
  await signIn(page, user)
  await expect(page.getByRole('alert')).toContainText(/Too many attempts/)
  const onA = await page.request.post(`${backendA}/api/auth/sign-in`, {
    data: { name: user.name, password: user.password },
  })
  expect(onA.status()).toBe(429)
  await page.context().close()
})

test('a script saved through one backend and edited through the other meets the 409, through the cluster', async ({
  browser,
}) => {
  test.setTimeout(180_000)
  const user = await newUser('designer')
  const first = await browserOn(browser, backendA)
  const second = await browserOn(browser, backendB)
  await signedIn(first, user)
  await signedIn(second, user)
  const editor = (page: Page) => page.getByRole('textbox', { name: 'Script', exact: true })

  const title = `Two backends ${Date.now()}`
  await first.goto('/script')
  await first.getByRole('button', { name: 'New script' }).click()
  await editor(first).fill('Written through backend A.')
  await first.getByRole('textbox', { name: 'Title' }).fill(title)
  await expect(first.getByText('All changes saved')).toBeVisible()

  await second.goto('/script')
  await expect(second.getByRole('textbox', { name: 'Title' })).toHaveValue(title)
  await editor(second).fill('Changed through backend B.')
  await expect(second.getByText('All changes saved')).toBeVisible()

  await editor(first).fill('Changed through backend A too.')
  await expect(first.getByRole('alert')).toContainText('saved in another browser')
  await first.getByRole('button', { name: 'Load the other version' }).click()
  await expect(editor(first)).toHaveValue('Changed through backend B.')
  await first.context().close()
  await second.context().close()
})
