import { execFileSync } from 'node:child_process'
import { test as setup } from '@playwright/test'
import { e2eVoiceClipsDir } from '../playwright.config.ts'

/**
 * Makes the voices tests' audio with the real eSpeak engine before their Chromium starts (it reads the fake
 * microphone's file when a page opens the microphone). Run through tsx, as the engine's worker threads expect.
 */
setup('make the fake microphone and the voice samples with eSpeak', () => {
  setup.setTimeout(180_000)
  execFileSync('npx', ['tsx', 'e2e/voice-clips.ts', e2eVoiceClipsDir], { stdio: 'inherit' })
})
