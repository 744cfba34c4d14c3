// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it } from 'vitest'
import { LiveBox } from './LiveBox.tsx'

afterEach(cleanup)

const settings = (model: 'svc-tts-2-latest' | 'svc-tts-mini-0.8') => ({
  model,
  voice: model === 'svc-tts-2-latest' ? 'english_40' : 'Bella',
  temperature: undefined,
  top_p: undefined,
  top_k: undefined,
  min_p: undefined,
  max_new_tokens: undefined,
})

describe('LiveBox', () => {
  it('explains that a 0.8 model cannot speak live, and keeps Start disabled', () => {
    render(<LiveBox settings={settings('svc-tts-mini-0.8')} />)
    const start = screen.getByRole('button', { name: 'Start live' })
    expect(start).toHaveProperty('disabled', true)
    expect(start.getAttribute('aria-describedby')).toBe('live-box-model')
    expect(document.getElementById('live-box-model')?.textContent).toMatch(/second-generation model/)
  })

  it('counts what Start will speak while not connected; Finish and Stop wait for a session', async () => {
    render(<LiveBox settings={settings('svc-tts-2-latest')} />)
    expect(screen.getByRole('button', { name: 'Start live' })).toHaveProperty('disabled', false)
    expect(screen.getByRole('button', { name: 'Finish' })).toHaveProperty('disabled', true)
    expect(screen.getByRole('button', { name: 'Stop live' })).toHaveProperty('disabled', true)
    await userEvent.type(screen.getByLabelText('Live text'), 'Hello there.')
    expect(document.getElementById('live-box-counts')?.textContent).toMatch(
      /^12 characters\. Start live speaks/,
    )
    expect(screen.getByRole('status').textContent).toMatch(/Not connected/)
  })
})
