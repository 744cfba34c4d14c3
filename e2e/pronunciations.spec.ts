import { readFileSync } from 'node:fs'
import { expect, type Page, type Request, test } from '@playwright/test'
import { editor, expectNoSidewaysScroll, freshScript, playLineAndWait, seriousViolations } from './support.ts'

/**
 * The studio's pronunciations on the script page, against the real backend and the real local speech service in a
 * real Chromium: an entry changes what the page sends, phonemes change what the local engine says, and the lexicon
 * goes out to a PLS file and comes back from it.
 */

const SPEECH = '/api/v1/audio/speech'

function region(page: Page) {
  return page.getByRole('region', { name: 'Pronunciations' })
}

/** The shared lexicon is the studio's: other specs' lines must not meet this one's entries. */
async function deleteAll(page: Page) {
  const deletes = region(page).getByRole('button', { name: /^Delete pronunciation of / })
  while ((await deletes.count()) > 0) {
    const before = await deletes.count()
    await deletes.first().click()
    await expect(deletes).toHaveCount(before - 1)
  }
  await expect(region(page).getByText('No pronunciations yet.')).toBeVisible()
}

async function add(page: Page, text: string, sayAs: string, phonemes = '') {
  const r = region(page)
  await r.getByLabel('Word or phrase').fill(text)
  await r.getByLabel('Say it as').fill(sayAs)
  await r.getByLabel('Phonemes (IPA)').fill(phonemes)
  await r.getByRole('button', { name: 'Add pronunciation' }).click()
  await expect(r.getByRole('listitem').filter({ hasText: text })).toBeVisible()
}

/**
 * The line's speech request as the page sent it, and the audio of that same request sent again from the page (the
 * browser keeps no body of a streamed answer): the SSE deltas' Base64, in order.
 */
async function playAndCapture(page: Page): Promise<{ input: string; audio: string }> {
  const sent = page.waitForRequest((r: Request) => r.url().endsWith(SPEECH) && r.method() === 'POST')
  await playLineAndWait(page)
  const body = (await sent).postDataJSON() as { input: string }
  const answer = await page.evaluate(
    async ({ url, request }) => {
      const me = (await (await fetch('/api/auth/me')).json()) as { csrfToken: string }
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken },
        body: JSON.stringify(request),
      })
      return response.text()
    },
    { url: SPEECH, request: body },
  )
  const audio = answer
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; audio?: string })
    .filter((e) => e.type === 'speech.audio.delta')
    .map((e) => e.audio)
    .join('')
  return { input: body.input, audio }
}

test('a pronunciation changes what is sent, phonemes what the local engine says, and the lexicon survives a PLS round trip', async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000)
  await freshScript(page, ['Kokoro grows a tomato.'])
  await expect(region(page)).toBeVisible()
  await deleteAll(page)
  // A 0.8 model renders without sampled prosody, so the same request gives the same audio.
  await page.getByLabel('Model', { exact: true }).first().selectOption('svc-tts-mini-0.8')
  await expect(
    region(page).getByText('svc-tts-mini-0.8 (this script): respellings and phonemes honoured'),
  ).toBeVisible()

  const plain = await playAndCapture(page)
  expect(plain.input).toBe('Kokoro grows a tomato.')
  expect(plain.audio.length).toBeGreaterThan(1000)

  // A respelling: the request carries it, the editor underlines the word and says what it will say.
  await add(page, 'Kokoro', 'koh koh roh')
  await expect(page.locator('.script-editor-mirror .pron-match', { hasText: 'Kokoro' })).toHaveCount(1)
  await page.getByText('Pronounced by the studio’s pronunciations: 1 word').click()
  await expect(page.getByText('Line 1: “Kokoro” will say “koh koh roh”')).toBeVisible()
  await editor(page).press('Control+Home')
  const respelled = await playAndCapture(page)
  expect(respelled.input).toBe('koh koh roh grows a tomato.')

  // Phonemes, honoured by the local engine: sent in its form, and the audio is not the plain word's.
  await add(page, 'tomato', 'tuh mah toh', 'təˈmɑːtoʊ')
  await expect(page.getByText('Line 1: “tomato” will say /təˈmɑːtoʊ/')).toBeVisible()
  await editor(page).press('Control+Home')
  const phonemes = await playAndCapture(page)
  expect(phonemes.input).toBe('koh koh roh grows a [[təˈmɑːtoʊ]].')
  expect(phonemes.audio).not.toBe(respelled.audio)
  // The same request again is the same audio: the difference is the phonemes', not chance.
  const again = await playAndCapture(page)
  expect(again.audio).toBe(phonemes.audio)

  expect(await seriousViolations(page)).toEqual([])
  await page.setViewportSize({ width: 390, height: 844 })
  await region(page).scrollIntoViewIfNeeded()
  await expectNoSidewaysScroll(page)
  await page.setViewportSize({ width: 1280, height: 800 })

  // Export, delete, import: both entries are back as they were.
  const downloading = page.waitForEvent('download')
  await region(page).getByRole('button', { name: 'Export pronunciations (PLS)' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toBe('pronunciations.pls')
  const path = testInfo.outputPath('pronunciations.pls')
  await download.saveAs(path)
  const pls = readFileSync(path, 'utf8')
  expect(pls).toContain('<grapheme>tomato</grapheme>')
  expect(pls).toContain('<phoneme>təˈmɑːtoʊ</phoneme>')
  await deleteAll(page)

  const importer = region(page).getByLabel('Import pronunciations (PLS)')
  const broken = pls.replace('<alias>koh koh roh</alias>', '<alias>koh koh roh</grapheme>')
  const brokenLine = broken.split('\n').findIndex((l) => l.includes('koh koh roh</grapheme>')) + 1
  await importer.setInputFiles({
    name: 'broken.pls',
    mimeType: 'application/pls+xml',
    buffer: Buffer.from(broken),
  })
  await expect(region(page).getByRole('alert')).toContainText(
    `Line ${brokenLine}: </grapheme> closes <alias>`,
  )
  await expect(region(page).getByText('No pronunciations yet.')).toBeVisible()

  await importer.setInputFiles(path)
  await expect(
    region(page).getByText('Imported 2 from pronunciations.pls: 2 added, 0 replaced.'),
  ).toBeVisible()
  await expect(region(page).getByRole('listitem').filter({ hasText: 'Kokoro' })).toContainText('koh koh roh')
  await expect(region(page).getByRole('listitem').filter({ hasText: 'tomato' })).toContainText('/təˈmɑːtoʊ/')
  await editor(page).press('Control+Home')
  expect((await playAndCapture(page)).input).toBe('koh koh roh grows a [[təˈmɑːtoʊ]].')

  await deleteAll(page)
})
