import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineConfig } from '@playwright/test'

/** End-to-end tests against the real backend, the real local speech service and a real Chromium. */
const port = Number(process.env.E2E_PORT ?? 8181)
const speechPort = Number(process.env.E2E_SPEECH_PORT ?? 8891)
export const e2eDataDir = join(tmpdir(), `speech-studio-e2e-${port}`)

const executablePath =
  process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE ??
  (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined)

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  retries: 0,
  reporter: 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
  },
  webServer: {
    command: `rm -rf ${e2eDataDir} && npm start`,
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    env: { PORT: String(port), SPEECH_PORT: String(speechPort), DATA_DIR: e2eDataDir, HOST: '127.0.0.1' },
  },
})
