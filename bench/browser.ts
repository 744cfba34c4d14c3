import { existsSync } from 'node:fs'
import { chromium } from '@playwright/test'

/** The benchmarks' Chromium: Debian's when installed, headless, allowed to play audio without a gesture. */
export function launchBenchBrowser() {
  const executablePath =
    process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE ??
    (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined)
  return chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--autoplay-policy=no-user-gesture-required',
    ],
  })
}
