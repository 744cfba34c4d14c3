import { expect, type Locator, type Page, type Request, test } from '@playwright/test'
import { integratedLoudness } from '../core/loudness.ts'
import { editor, freshScript, playbackStatus, seriousViolations, transport } from './support.ts'

/**
 * Takes that know their line changed, locked lines and the loudness-matched A/B (issue 40, items 3 and 4), in a real
 * Chromium against the real backend and local speech service. Every speech request the page sends is counted, and
 * what the A/B plays is recorded from the page's own Web Audio graph and measured with the BS.1770 meter.
 */

const takesOf = (page: Page, n: number): Locator => page.getByRole('region', { name: `Takes of Line ${n}` })
const renderPanel = (page: Page) => page.getByRole('region', { name: 'Final render and download' })

/** The inputs of the speech requests the page sends (previews and renders alike), in order. */
function speechRequests(page: Page): { inputs: string[]; bodies: Array<Record<string, unknown>> } {
  const seen = { inputs: [] as string[], bodies: [] as Array<Record<string, unknown>> }
  page.on('request', (r: Request) => {
    if (r.method() !== 'POST' || !r.url().includes('/v1/audio/speech')) return
    const body = r.postDataJSON() as Record<string, unknown>
    seen.bodies.push(body)
    seen.inputs.push(String(body.input))
  })
  return seen
}

async function playScriptAndWait(page: Page) {
  await transport(page).getByRole('button', { name: 'Play script', exact: true }).click()
  await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: 120_000 })
}

/** Puts the caret on line `n` (1-based) of the editor, so the line panel shows that line. */
async function caretOnLine(page: Page, n: number) {
  await editor(page).press('Control+Home')
  for (let i = 1; i < n; i++) await editor(page).press('ArrowDown')
  await expect(page.getByRole('heading', { level: 2, name: new RegExp(`^Line ${n}`) })).toBeVisible()
}

/** Waits until every take of the line is kept by the studio (its save is off the play path). */
async function allStored(list: Locator, count: number) {
  await expect(list.locator('li.take[data-stored="true"]')).toHaveCount(count, { timeout: 60_000 })
}

test.describe('takes that know their line', () => {
  test('an edited line’s take says so, and Render changed lines makes exactly that one line', async ({
    page,
  }) => {
    const requests = speechRequests(page)
    await freshScript(page, ['The first line stays as it is.', 'The second line will be edited.'])
    await playScriptAndWait(page)
    expect(requests.inputs).toEqual(['The first line stays as it is.', 'The second line will be edited.'])
    await allStored(takesOf(page, 1), 1)
    const changedLines = transport(page).getByRole('button', { name: 'Play changed lines' })
    const renderChanged = renderPanel(page).getByRole('button', { name: 'Render changed lines' })
    await expect(changedLines).toBeDisabled()
    await expect(renderChanged).toBeDisabled()

    await editor(page).fill('The first line stays as it is.\nThe second line, edited since its take.')
    await caretOnLine(page, 2)
    await expect(takesOf(page, 2).getByText('Text changed since this take')).toBeVisible()
    await expect(takesOf(page, 2).getByText('Made from: “The second line will be edited.”')).toBeVisible()
    await caretOnLine(page, 1)
    await expect(takesOf(page, 1).getByText('Text changed since this take')).toHaveCount(0)
    expect(await seriousViolations(page)).toEqual([])

    requests.inputs.length = 0
    requests.bodies.length = 0
    await expect(renderChanged).toBeEnabled()
    await renderChanged.click()
    await caretOnLine(page, 2)
    const list = takesOf(page, 2)
    await expect(list.getByRole('listitem')).toHaveCount(2, { timeout: 120_000 })
    await expect(list.getByText('Final render')).toBeVisible()
    await expect(renderChanged).toBeDisabled({ timeout: 60_000 })
    expect(requests.inputs).toEqual(['The second line, edited since its take.'])
    expect(requests.bodies[0]?.stream).toBe(false)
    // The new take is the line's chosen one and is of its text; the old one still says it changed.
    await expect(list.getByRole('button', { name: 'Star take 2' })).toHaveAttribute('aria-pressed', 'true')
    await expect(list.getByText('Text changed since this take')).toHaveCount(1)
    await expect(changedLines).toBeDisabled()
  })

  test('a locked line keeps its chosen take: read-only, and never made again', async ({ page }) => {
    const requests = speechRequests(page)
    await freshScript(page, [
      'This line is locked once it sounds right.',
      'This line is still being written.',
    ])
    await playScriptAndWait(page)
    await allStored(takesOf(page, 1), 1)
    await caretOnLine(page, 1)
    await takesOf(page, 1).getByRole('button', { name: 'Star take 1' }).click()
    await page.getByRole('button', { name: 'Lock line' }).click()
    await expect(page.getByRole('button', { name: 'Unlock line' })).toBeVisible()
    await expect(page.getByText('Locked: its chosen take is kept and never made again')).toBeVisible()
    await expect(transport(page).getByRole('button', { name: 'Play line 1' })).toBeDisabled()
    await expect(takesOf(page, 1).getByRole('button', { name: 'Star take 1' })).toBeDisabled()
    expect(await seriousViolations(page)).toEqual([])

    // Its text is read-only: typing into it changes nothing and says why.
    await editor(page).press('Control+Home')
    await editor(page).press('End')
    await editor(page).pressSequentially(' More')
    await expect(editor(page)).toHaveValue(
      'This line is locked once it sounds right.\nThis line is still being written.',
    )
    await expect(page.getByText('Line 1 is locked: unlock it to edit its text.')).toBeVisible()

    // Play script, the changed lines and their render: none asks for the locked line.
    await editor(page).fill('This line is locked once it sounds right.\nThis line is written now.')
    requests.inputs.length = 0
    await playScriptAndWait(page)
    expect(requests.inputs).toEqual(['This line is written now.'])
    await editor(page).fill('This line is locked once it sounds right.\nThis line is written at last.')
    await transport(page).getByRole('button', { name: 'Play changed lines' }).click()
    await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: 120_000 })
    await editor(page).fill('This line is locked once it sounds right.\nThis line is done.')
    await renderPanel(page).getByRole('button', { name: 'Render changed lines' }).click()
    await caretOnLine(page, 2)
    await expect(takesOf(page, 2).getByText('Final render')).toBeVisible({ timeout: 120_000 })
    await expect(renderPanel(page).getByRole('button', { name: 'Render changed lines' })).toBeDisabled()
    expect(requests.inputs).toEqual([
      'This line is written now.',
      'This line is written at last.',
      'This line is done.',
    ])
    await caretOnLine(page, 1)
    await expect(takesOf(page, 1).getByRole('listitem')).toHaveCount(1)

    // Kept by the studio with the script, and editable again once unlocked.
    await expect(page.locator('#save-state')).toHaveText('All changes saved')
    await page.reload()
    await caretOnLine(page, 1)
    await page.getByRole('button', { name: 'Unlock line' }).click()
    await editor(page).press('Control+Home')
    await editor(page).press('End')
    await editor(page).pressSequentially(' Again')
    await expect(editor(page)).toHaveValue(
      'This line is locked once it sounds right. Again\nThis line is done.',
    )
  })
})

/**
 * The gains the page's Web Audio graph is told to play at: every ramp to a level above silence (the take player's
 * fade-in to the side heard, or to a new level when matching is turned on or off), in order.
 */
function tapGains(page: Page) {
  return page.addInitScript(() => {
    const levels: number[] = []
    ;(window as unknown as { __levels: number[] }).__levels = levels
    const ramp = AudioParam.prototype.linearRampToValueAtTime
    AudioParam.prototype.linearRampToValueAtTime = function (this: AudioParam, value: number, at: number) {
      if (value > 0) levels.push(value)
      return ramp.call(this, value, at)
    }
  })
}

/** The level the graph was last told to play at. */
const lastLevel = (page: Page) =>
  page.evaluate(() => (window as unknown as { __levels: number[] }).__levels.at(-1) ?? Number.NaN)

/** A stored take's audio as the backend serves it (WAV of 24 kHz PCM16), measured with the BS.1770 meter. */
async function storedLoudness(page: Page, takeId: string): Promise<number> {
  const wav = await page.request.get(`/api/takes/${takeId}/audio`)
  expect(wav.status()).toBe(200)
  const body = Uint8Array.from(await wav.body()).subarray(44)
  return integratedLoudness(new Int16Array(body.buffer, body.byteOffset, body.byteLength >> 1), 24_000)
}

const db = (gain: number) => 20 * Math.log10(gain)

const lufsOf = async (row: Locator) =>
  Number(
    ((await row.getByTestId('take-loudness').textContent()) ?? '')
      .match(/(−?[\d.]+) LUFS/)?.[1]
      ?.replace('−', '-'),
  )

test.describe('a fair A/B', () => {
  test('Match loudness plays two takes of different loudness at the same loudness', async ({ page }) => {
    await tapGains(page)
    const stored: string[] = []
    page.on('response', async (r) => {
      if (r.request().method() === 'POST' && /\/api\/scripts\/scr_[0-9a-f]+\/takes$/.test(r.url()))
        stored.push(((await r.json()) as { take: { id: string } }).take.id)
    })
    await freshScript(page, ['Two takes of this line, one louder than the other.'])
    await transport(page).getByRole('button', { name: 'Play line 1' }).click()
    await expect(playbackStatus(page)).toHaveText(/Finished/, { timeout: 120_000 })
    const list = takesOf(page, 1)
    await allStored(list, 1)
    await list.getByRole('button', { name: 'Star take 1' }).click()
    // The final render is loudness-normalized (−16 LUFS); the streamed take is not.
    await renderPanel(page).getByRole('button', { name: 'Final render of chosen takes' }).click()
    await allStored(list, 2)
    await expect(list.getByRole('img', { name: 'Waveform of take 1' })).toBeVisible()
    await expect(list.getByRole('img', { name: 'Waveform of take 2' })).toBeVisible()
    const [rendered, streamed] = await list.getByRole('listitem').all()
    const shown = { a: await lufsOf(streamed as Locator), b: await lufsOf(rendered as Locator) }
    // What the page shows is what the audio measures.
    expect(stored).toHaveLength(2)
    const audio = {
      a: await storedLoudness(page, stored[0] as string),
      b: await storedLoudness(page, stored[1] as string),
    }
    expect(Math.abs(audio.a - shown.a)).toBeLessThan(0.06)
    expect(Math.abs(audio.b - shown.b)).toBeLessThan(0.06)
    expect(Math.abs(shown.b + 16)).toBeLessThan(0.5)
    // Far enough apart that an unmatched A/B fails the ±1 LU below.
    expect(Math.abs(audio.a - audio.b)).toBeGreaterThan(2)

    await list.getByRole('checkbox', { name: 'Compare take 1' }).check()
    await list.getByRole('checkbox', { name: 'Compare take 2' }).check()
    const ab = list.getByRole('group', { name: /^A\/B: take 1 \(A\) and take 2 \(B\)/ })
    await expect(ab.getByRole('checkbox', { name: 'Match loudness' })).toBeChecked()
    expect(await seriousViolations(page)).toEqual([])

    // A plays, then B from the same moment: each at the level the page applied, over its own audio.
    await ab.getByRole('button', { name: 'Play', exact: true }).click()
    await expect(ab.getByRole('button', { name: 'Pause', exact: true })).toBeVisible()
    const heardA = audio.a + db(await lastLevel(page))
    await ab.getByRole('button', { name: 'B: take 2' }).click()
    await expect(ab.getByRole('button', { name: 'B: take 2' })).toHaveAttribute('aria-pressed', 'true')
    const heardB = audio.b + db(await lastLevel(page))
    expect(Math.abs(heardA - heardB)).toBeLessThan(1)
    // Unticked while B plays: B is heard at its own level at once, as far from A as their loudness says.
    await ab.getByRole('checkbox', { name: 'Match loudness' }).uncheck()
    await expect(ab.getByTestId('take-match-note')).toHaveText(/^Playing as they are/)
    const heardBUnmatched = audio.b + db(await lastLevel(page))
    expect(Math.abs(heardBUnmatched - audio.b)).toBeLessThan(0.01)
    expect(Math.abs(heardBUnmatched - heardA)).toBeGreaterThan(2)
    await ab.getByRole('button', { name: 'Pause', exact: true }).click()
    console.log(
      `loudness: takes ${audio.a.toFixed(2)} / ${audio.b.toFixed(2)} LUFS; matched A ${heardA.toFixed(2)}, B ${heardB.toFixed(2)}; B unmatched ${heardBUnmatched.toFixed(2)}`,
    )
  })
})
