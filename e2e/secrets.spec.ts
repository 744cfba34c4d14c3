import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, type Locator, type Page, test } from '@playwright/test'
import Database from 'better-sqlite3'
import { e2eDataDir, e2eServerLog, e2eVoiceClipsDir } from '../playwright.config.ts'
import { CLIP_FILES } from './voice-clips.ts'

/**
 * Where secrets must never go (issue #8.5): every page is driven through its main journey while all browser traffic
 * (requests, responses, WebSocket frames, console) is recorded and the studio's own log (both servers, LOG_LEVEL
 * info) is written to a file. The backend's service key must appear in neither; the consent and voice ids made on
 * the way may reach the browser (it lists them) but never the log.
 */

const SERVICE_WORK = 120_000
const unique = (label: string) => `${label} ${Date.now().toString(36)}`
const region = (page: Page, name: string): Locator => page.getByRole('region', { name, exact: true })

/** Everything the browser sent and received, as text (binary bodies as Latin-1, so a key inside would still show). */
function recordTraffic(page: Page): string[] {
  const seen: string[] = []
  page.on('request', async (request) => {
    seen.push(request.url())
    const body = request.postDataBuffer()
    if (body) seen.push(body.toString('latin1'))
    try {
      seen.push(JSON.stringify(await request.allHeaders()))
    } catch {
      // A request still in flight when the test ends: its page is gone and so are its headers (nothing to leak).
    }
  })
  page.on('response', async (response) => {
    try {
      seen.push(JSON.stringify(await response.allHeaders()))
      seen.push((await response.body()).toString('latin1'))
    } catch {
      // A stream the page stopped has no body to read; its frames were headers only.
    }
  })
  page.on('websocket', (socket) => {
    seen.push(socket.url())
    const frame = ({ payload }: { payload: string | Buffer }) =>
      seen.push(typeof payload === 'string' ? payload : payload.toString('latin1'))
    socket.on('framesent', frame)
    socket.on('framereceived', frame)
  })
  page.on('console', (message) => seen.push(message.text()))
  return seen
}

function serviceKey(): string {
  const db = new Database(join(e2eDataDir, 'studio.db'), { readonly: true })
  try {
    const row = db.prepare("SELECT value FROM settings WHERE name = 'embedded_api_key'").get() as
      | { value: string }
      | undefined
    if (!row) throw new Error('the backend has not provisioned its key')
    return row.value
  } finally {
    db.close()
  }
}

test('no key reaches the browser, and no consent or voice id reaches the log', async ({ page }) => {
  test.setTimeout(6 * 60_000)
  const traffic = recordTraffic(page)
  const ids: string[] = []
  page.on('response', async (response) => {
    if (!/\/api\/v1\/audio\/(voice_consents|voices)$/.test(response.url()) || !response.ok()) return
    if (response.request().method() === 'POST') ids.push(((await response.json()) as { id: string }).id)
  })

  // Script: a preview streamed through the backend.
  await page.goto('/script')
  await page
    .getByRole('textbox', { name: 'Script', exact: true })
    .fill('A line that travels through the backend.')
  await page.getByRole('button', { name: /^Play line/ }).click()
  await expect(page.getByTestId('playback-status')).toHaveText(/Finished/, { timeout: SERVICE_WORK })

  // Voices: a consent and a voice from uploaded files, a preview, then the consent revoked with its voice.
  const owner = unique('Secret owner')
  const voiceName = unique('Secret voice')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voices' }).click()
  const consentForm = region(page, 'Record a consent')
  await consentForm.getByLabel('Name of the voice’s owner').fill(owner)
  await consentForm.getByRole('radio', { name: 'Upload a file' }).check()
  await consentForm.getByLabel('Audio file').setInputFiles(join(e2eVoiceClipsDir, CLIP_FILES.consent))
  await consentForm.getByRole('button', { name: 'Save consent' }).click()
  await expect(consentForm.getByText(`Consent for “${owner}” saved.`)).toBeVisible({ timeout: SERVICE_WORK })
  const voiceForm = region(page, 'Create a saved voice')
  await voiceForm.getByLabel('Voice name').fill(voiceName)
  const consentSelect = voiceForm.getByLabel('Consent of the person in the sample')
  const option = consentSelect.locator('option', { hasText: owner })
  await expect(option).toHaveCount(1)
  await consentSelect.selectOption((await option.getAttribute('value')) ?? '')
  await voiceForm.getByRole('radio', { name: 'Upload a file' }).check()
  await voiceForm.getByLabel('Audio file').setInputFiles(join(e2eVoiceClipsDir, CLIP_FILES.sameSpeaker))
  // The sample is read (its length checked) before the form takes it.
  await expect(voiceForm.getByLabel('Play back the file')).toBeVisible()
  await voiceForm.getByRole('button', { name: 'Save voice' }).click()
  await expect(voiceForm.getByText(`Voice “${voiceName}” saved`)).toBeVisible({ timeout: SERVICE_WORK })
  const voices = region(page, 'Saved voices')
  await voices.getByRole('button', { name: `Preview ${voiceName}` }).click()
  await expect(voices.getByText(`Preview of “${voiceName}”: Finished.`)).toBeVisible({
    timeout: SERVICE_WORK,
  })
  await region(page, 'Consents')
    .getByRole('button', { name: `Revoke ${owner}` })
    .click()
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke consent and voices' }).click()
  await expect(page.getByRole('dialog')).toBeHidden({ timeout: SERVICE_WORK })

  // Transcripts: an upload with speaker labels, then a moment of live transcription (an ephemeral credential).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transcripts' }).click()
  await page
    .getByLabel('Recording', { exact: true })
    .setInputFiles(join(e2eVoiceClipsDir, CLIP_FILES.consent))
  await page.getByRole('button', { name: 'Transcribe' }).click()
  await expect(region(page, 'Transcribe a recording').getByRole('status')).toHaveText(
    /Transcribed and saved/,
    {
      timeout: SERVICE_WORK,
    },
  )
  const live = region(page, 'Live from the microphone')
  await live.getByRole('button', { name: 'Start listening' }).click()
  await expect(live.getByRole('status')).toHaveText(/Listening/, { timeout: 20_000 })
  await live.getByRole('button', { name: 'Stop' }).click()
  await expect(live.getByRole('status')).toHaveText(/Stopped/, { timeout: 15_000 })

  expect(ids).toHaveLength(2)
  const key = serviceKey()
  expect(key).toMatch(/^sk_/)
  const browser = traffic.join('\n')
  // The journey did reach the browser: the ids it made are in its traffic, so their absence below means something.
  for (const id of ids) expect(browser).toContain(id)
  expect(browser.includes(key), 'the service key appeared in browser traffic').toBe(false)
  expect(browser).not.toMatch(/\b(sk|ek)_[A-Za-z0-9_-]{8,}/)
  // The studio's Content-Security-Policy (server/studio/auth/host-guard.ts) refused nothing the journeys needed.
  expect(traffic.filter((line) => line.includes('Content Security Policy'))).toEqual([])

  const log = readFileSync(e2eServerLog, 'utf8')
  expect(log.length, 'the studio wrote no log').toBeGreaterThan(0)
  expect(log).toContain('/api/v1/audio/voice_consents')
  expect(log.includes(key), 'the service key appeared in the log').toBe(false)
  for (const id of ids) expect(log.includes(id), `${id} appeared in the log`).toBe(false)
})
