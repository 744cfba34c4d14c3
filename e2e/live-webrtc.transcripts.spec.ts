import { expect, type Page, test } from '@playwright/test'
import { seriousViolations } from './support.ts'

/**
 * Live transcription over WebRTC (issue 41 item 4) against the real backend and the real local speech service, in the
 * "transcripts" project: Chromium's fake microphone plays a real meeting excerpt (playwright.config.ts). The backend
 * mints the session's secret and relays the SDP exchange (server/studio/live/calls.ts); the audio goes to the service
 * as Opus over loopback UDP and the events come back on the data channel. Nothing is mocked.
 */

/**
 * How many of five realtime sessions the service admits now, opened from the page through the studio's socket bridge
 * (the organization has 5 ASR slots, contract 8): 5 when nothing else holds one. Each is closed once it has answered.
 */
async function admittedOfFive(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
    const open = (): Promise<{ socket: WebSocket; admitted: boolean }> =>
      new Promise((resolve) => {
        const socket = new WebSocket(`${scheme}://${window.location.host}/api/v1/realtime?diarization=false`)
        const timer = setTimeout(() => resolve({ socket, admitted: false }), 20_000)
        socket.onmessage = (message) => {
          const event = JSON.parse(String(message.data)) as { type: string }
          if (event.type !== 'session.created' && event.type !== 'error') return
          clearTimeout(timer)
          resolve({ socket, admitted: event.type === 'session.created' })
        }
        socket.onclose = () => {
          clearTimeout(timer)
          resolve({ socket, admitted: false })
        }
      })
    const sessions = await Promise.all([open(), open(), open(), open(), open()])
    for (const { socket } of sessions) socket.close(1000)
    return sessions.filter((s) => s.admitted).length
  })
}

/** Whether the page scrolls sideways at 390 px wide (a phone). */
async function sidewaysOverflow(page: Page): Promise<{ document: number; viewport: number }> {
  return page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }))
}

test('live transcription over WebRTC shows words before the speaker stops, and Stop hangs up cleanly', async ({
  page,
}) => {
  test.setTimeout(150_000)
  await page.goto('/transcripts')
  const live = page.getByRole('region', { name: 'Live from the microphone' })
  const transport = live.getByRole('radiogroup', { name: 'Transport' })
  const webrtc = transport.getByRole('radio', { name: 'WebRTC', exact: true })
  const websocket = transport.getByRole('radio', { name: 'WebSocket', exact: true })
  await expect(websocket).toBeChecked()

  // With speaker labels on, WebRTC is not offered, and the panel says why in words.
  await expect(webrtc).toBeDisabled()
  await expect(webrtc).toHaveAccessibleDescription(/Speaker labels need the WebSocket/)
  await expect(live.getByText(/the service does not attribute speakers over WebRTC/)).toBeVisible()
  expect(await seriousViolations(page)).toEqual([])

  // By keyboard: labels off, then the transport chosen with the arrow keys.
  await live.getByLabel('Label speakers (diarization)').focus()
  await page.keyboard.press('Space')
  await expect(live.getByLabel('Label speakers (diarization)')).not.toBeChecked()
  await expect(webrtc).toBeEnabled()
  await websocket.focus()
  await page.keyboard.press('ArrowDown')
  await expect(webrtc).toBeChecked()
  await expect(webrtc).toBeFocused()

  const placed = page.waitForResponse(
    (r) => r.url().endsWith('/api/v1/realtime/calls') && r.request().method() === 'POST',
  )
  await live.getByRole('button', { name: 'Start listening' }).click()
  const call = await placed
  expect(call.status()).toBe(201)
  expect(call.headers()['content-type']).toMatch(/^application\/sdp/)
  const location = call.headers().location ?? ''
  expect(location).toMatch(/^\/api\/v1\/realtime\/calls\/rtc_[0-9a-f]+$/)
  await expect(live.getByRole('status')).toHaveText(/Listening/, { timeout: 20_000 })
  // The session opened over WebRTC holds one of the 5 slots.
  expect(await admittedOfFive(page)).toBe(4)

  // Words while the turn is still going on: a row with letters that is not yet final.
  const log = live.getByRole('log', { name: 'Live transcript' })
  await expect(log.locator('li.live-partial .live-text').filter({ hasText: /\p{L}/u }).first()).toBeVisible({
    timeout: 60_000,
  })
  // No speaker column on this transport.
  await expect(log.locator('.live-speaker')).toHaveCount(0)
  expect(await seriousViolations(page)).toEqual([])

  const hungUp = page.waitForResponse((r) => r.url().endsWith(location) && r.request().method() === 'DELETE')
  await live.getByRole('button', { name: 'Stop' }).click()
  await expect(live.getByRole('status')).toHaveText(/Stopped/, { timeout: 20_000 })
  expect((await hungUp).status()).toBe(204)
  // Stop ends cleanly: no error, no refused commit, no row without words.
  await expect(live.getByRole('status')).not.toHaveClass(/status-error/)
  await expect(live.getByText(/The service said/)).toHaveCount(0)
  await expect(log.locator('li .live-text').filter({ hasText: /^…$/ })).toHaveCount(0)
  expect(((await log.locator('li .live-text').first().textContent()) ?? '').trim()).not.toBe('')

  // The call's slot is free again: five more sessions are admitted.
  expect(await admittedOfFive(page)).toBe(5)

  // At 390 px wide the panel fits and axe still finds nothing serious.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect.poll(() => sidewaysOverflow(page)).toEqual({ document: 390, viewport: 390 })
  expect(await seriousViolations(page)).toEqual([])
})
