import { expect, type Page, test } from '@playwright/test'
import {
  editor,
  expectNoSidewaysScroll,
  freshScript,
  playbackStatus,
  seriousViolations,
  transport,
} from './support.ts'

/**
 * A dialogue with a cast, against the real backend and the real local speech service in Chromium: the speaker names
 * the checks flag become cast members, each line goes out in its speaker's voice without its `NAME:` prefix, in the
 * preview and in the final render, and the cast is kept with the script.
 */

const SERVICE_WORK = 45_000
const ALICE_LINE = 'Hello, I am the first voice of this little dialogue.'
const BOB_LINE = 'And I answer her in a second voice.'

interface SentSpeech {
  input: string
  voice: string | { id: string }
  stream?: boolean
}

/** Every speech request the page sends, as sent. */
function speechRequests(page: Page): SentSpeech[] {
  const sent: SentSpeech[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/audio/speech')
      sent.push(request.postDataJSON() as SentSpeech)
  })
  return sent
}

test('a two-name dialogue plays with two voices and renders in them, without the names', async ({ page }) => {
  test.setTimeout(240_000)
  const sent = speechRequests(page)
  await freshScript(page, [`ALICE: ${ALICE_LINE}`, `BOB: ${BOB_LINE}`])

  // Without a cast, two speaker-like names read as a dialogue: the checks say both would be spoken.
  const checks = page.locator('.script-editor-issues')
  await expect(checks.getByText(/ALICE looks like a speaker, but the script has no cast/)).toBeVisible()
  await expect(checks.getByText(/BOB looks like a speaker/)).toBeVisible()
  await checks.getByRole('button', { name: 'Add ALICE to the cast', exact: true }).click()
  await expect(checks.getByText(/BOB is not in the cast/)).toBeVisible()
  await checks.getByRole('button', { name: 'Add BOB to the cast', exact: true }).click()
  await expect(checks.getByText('Markup looks right.')).toBeVisible()

  // Each member was given a voice of their own; BOB's is chosen in the Cast region's voice picker.
  const cast = page.getByRole('region', { name: 'Cast' })
  await expect(cast.locator('summary')).toHaveText([
    /^ALICE captain_01 · 1 line$/,
    /^BOB narrator_02 · 1 line$/,
  ])
  await cast.locator('summary', { hasText: 'BOB' }).click()
  await cast.getByRole('group', { name: 'Voice for BOB' }).getByRole('radio', { name: 'witch_04' }).check()
  await expect(cast.locator('summary', { hasText: 'BOB' })).toHaveText(/witch_04/)
  await expect(page.getByText('All changes saved')).toBeVisible()
  expect(await seriousViolations(page)).toEqual([])

  // A name the cast lacks is flagged, and a typo in the add form is refused beside the field.
  await cast.getByRole('textbox', { name: 'Cast member name' }).fill('alice')
  await cast.getByRole('button', { name: 'Add cast member' }).click()
  await expect(cast.getByText(/A name is 1 to 3 words, each starting with a capital letter/)).toBeVisible()
  await cast.getByRole('textbox', { name: 'Cast member name' }).fill('Alice')
  await cast.getByRole('button', { name: 'Add cast member' }).click()
  await expect(cast.getByText('Alice is in the cast already.')).toBeVisible()

  await transport(page).getByRole('button', { name: 'Play script' }).click()
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: SERVICE_WORK * 2 })
  const previews = sent.filter((r) => r.stream !== false)
  expect(previews.map((r) => [r.voice, r.input])).toEqual([
    ['captain_01', ALICE_LINE],
    ['witch_04', BOB_LINE],
  ])

  // Star each line's take, then render: the render speaks each line in its speaker's voice, without the name.
  for (const [key, n] of [
    ['Control+Home', 1],
    ['Control+End', 2],
  ] as const) {
    await editor(page).press(key)
    const takes = page.getByRole('region', { name: `Takes of Line ${n}` })
    await takes.getByRole('button', { name: 'Star Take 1' }).click()
    await expect(takes.getByRole('button', { name: 'Star Take 1' })).toHaveAttribute('aria-pressed', 'true')
  }
  await page.getByRole('button', { name: 'Final render of chosen takes' }).click()
  await expect(page.getByRole('region', { name: 'Takes of Line 2' }).getByText('Final render')).toHaveCount(
    1,
    {
      timeout: SERVICE_WORK * 2,
    },
  )
  const renders = sent.filter((r) => r.stream === false)
  expect(renders.map((r) => [r.voice, r.input])).toEqual([
    ['captain_01', ALICE_LINE],
    ['witch_04', BOB_LINE],
  ])

  // The cast is part of the script: it comes back after a reload.
  await page.reload()
  await expect(editor(page)).toHaveValue(`ALICE: ${ALICE_LINE}\nBOB: ${BOB_LINE}`)
  await expect(page.getByRole('region', { name: 'Cast' }).locator('summary')).toHaveText([
    /^ALICE captain_01/,
    /^BOB witch_04/,
  ])
})

test('prose that only looks like a speaker is spoken as written and not flagged', async ({ page }) => {
  const sent = speechRequests(page)
  await freshScript(page, ['Note: this line is prose, and every word of it is spoken.'])
  await expect(page.getByText('Markup looks right.')).toBeVisible()
  await transport(page)
    .getByRole('button', { name: /^Play line \d+$/ })
    .click()
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: SERVICE_WORK })
  expect(sent.map((r) => r.input)).toEqual(['Note: this line is prose, and every word of it is spoken.'])
})

test('the Cast region works from the keyboard and fits a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await freshScript(page, ['MARY JANE WATSON: A long name that must still fit the window.'])
  const cast = page.getByRole('region', { name: 'Cast' })
  const name = cast.getByRole('textbox', { name: 'Cast member name' })
  await name.fill('Mary Jane Watson')
  await name.press('Enter')
  await expect(name).toHaveValue('')
  const member = cast.locator('summary', { hasText: 'Mary Jane Watson' })
  await expect(member).toHaveText(/1 line/)
  await member.focus()
  await member.press('Enter')
  await expect(cast.getByRole('group', { name: 'Voice for Mary Jane Watson' })).toBeVisible()
  await expectNoSidewaysScroll(page)
  expect(await seriousViolations(page)).toEqual([])
  await cast.getByRole('button', { name: 'Remove Mary Jane Watson from the cast' }).press('Enter')
  await expect(cast.getByText('No cast: every line is spoken in the script’s voice.')).toBeVisible()
})
