// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LEGACY_VOICE_IDS, type ModelId, SECOND_GEN_VOICES } from '../../../schema/index.ts'
import { type SavedVoiceOption, VoicePicker } from './VoicePicker.tsx'

const ADA = { id: `voice_${'a'.repeat(32)}`, name: 'Ada narration' }

function Harness(props: {
  model: ModelId
  initial: string
  saved?: SavedVoiceOption[]
  onChange?: (voice: string) => void
  onSample?: (voice: string) => void
}) {
  const [voice, setVoice] = useState(props.initial)
  return (
    <VoicePicker
      model={props.model}
      value={voice}
      onChange={(v) => {
        setVoice(v)
        props.onChange?.(v)
      }}
      savedVoices={props.saved ?? []}
      onSample={props.onSample ?? (() => {})}
    />
  )
}

const radioNames = () => screen.getAllByRole('radio').map((r) => r.getAttribute('value'))

afterEach(cleanup)

describe('VoicePicker', () => {
  it('lists the model’s catalog in the contract’s groups, the chosen voice checked', () => {
    render(<Harness model="svc-tts-2-latest" initial="eleanor_somber_female_32" />)
    expect(radioNames()).toEqual(SECOND_GEN_VOICES.map((v) => v.id))
    const groups = screen.getAllByRole('group').map((g) => g.querySelector('legend')?.textContent)
    expect(groups).toEqual([
      'Voice',
      'Character voices (01–09)',
      '0.8 counterparts (10–17)',
      'Descriptive voices (18–37)',
      'Languages (38–47)',
    ])
    const eleanor = screen.getByRole('radio', { name: 'eleanor_somber_female_32' }) as HTMLInputElement
    expect(eleanor.checked).toBe(true)
    expect(eleanor.getAttribute('aria-describedby')).toBeTruthy()
    expect(screen.getByText('somber, measured · en-US')).toBeTruthy()
  })

  it('narrows the list by id, description and language name as the search is typed', async () => {
    const user = userEvent.setup()
    render(<Harness model="svc-tts-2-latest" initial="captain_01" />)
    const search = screen.getByRole('searchbox', { name: 'Search voices' })
    await user.type(search, 'warm')
    // "warm, friendly" and "warm storybook narrator"; the chosen captain stays, marked outside the search.
    expect(radioNames()).toEqual(['captain_01', 'narrator_02', 'amber_warm_female_18'])
    expect(screen.getByText(/chosen, outside the search/)).toBeTruthy()
    expect(screen.getByText('2 of 47 voices match')).toBeTruthy()
    await user.clear(search)
    await user.type(search, 'german')
    expect(radioNames()).toEqual(['captain_01', 'german_39'])
    await user.clear(search)
    await user.type(search, 'female calm')
    expect(radioNames()).toEqual(['captain_01'])
    expect(screen.getByText('0 of 47 voices match')).toBeTruthy()
  })

  it('filters by a language of the catalog', async () => {
    const user = userEvent.setup()
    render(<Harness model="svc-tts-2-latest" initial="eleanor_somber_female_32" />)
    const language = screen.getByRole('combobox', { name: 'Language' })
    const options = within(language)
      .getAllByRole('option')
      .map((o) => o.textContent)
    expect(options).toEqual([
      'All languages',
      'English',
      'Arabic',
      'German',
      'Spanish',
      'French',
      'Italian',
      'Portuguese',
      'Russian',
      'Chinese',
      'Hindi',
    ])
    await user.selectOptions(language, 'Chinese')
    expect(radioNames()).toEqual(['eleanor_somber_female_32', 'chinese_46'])
    await user.selectOptions(language, 'English')
    expect(radioNames()).toHaveLength(38)
  })

  it('reports the voice chosen and shows it as chosen', async () => {
    const user = userEvent.setup()
    const onChange = vi.fn()
    render(<Harness model="svc-tts-2-latest" initial="eleanor_somber_female_32" onChange={onChange} />)
    await user.click(screen.getByRole('radio', { name: 'german_39' }))
    expect(onChange).toHaveBeenLastCalledWith('german_39')
    expect((screen.getByRole('radio', { name: 'german_39' }) as HTMLInputElement).checked).toBe(true)
    expect(document.querySelector('.voice-chosen')?.textContent).toBe(
      'Chosen: german_39 (german speaker, de)',
    )
  })

  it('plays a sample of any voice, and keeps only the chosen voice’s sample button in the tab order', async () => {
    const user = userEvent.setup()
    const onSample = vi.fn()
    render(<Harness model="svc-tts-2-latest" initial="pixie_06" onSample={onSample} />)
    await user.click(screen.getByRole('button', { name: 'Play sample of hindi_47' }))
    expect(onSample).toHaveBeenCalledWith('hindi_47')
    const tabbable = screen.getAllByRole('button').filter((b) => b.tabIndex === 0)
    expect(tabbable.map((b) => b.getAttribute('aria-label'))).toEqual(['Play sample of pixie_06'])
    screen.getByRole('radio', { name: 'pixie_06' }).focus()
    await user.tab()
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Play sample of pixie_06')
  })

  it('shows the chosen model’s catalog when the model changes', () => {
    const { rerender } = render(<VoicePicker {...fixed('svc-tts-2-latest', 'bella_10')} />)
    expect(radioNames()).toContain('bella_10')
    rerender(<VoicePicker {...fixed('svc-tts-nano-0.8', 'Bella')} />)
    expect(radioNames()).toEqual([...LEGACY_VOICE_IDS])
    expect(screen.getByText('0.8 voices')).toBeTruthy()
    expect(within(screen.getByRole('combobox', { name: 'Language' })).getAllByRole('option')).toHaveLength(2)
  })

  it('offers the organization’s saved voices on the second generation only', async () => {
    const user = userEvent.setup()
    const { rerender } = render(<VoicePicker {...fixed('svc-tts-2-latest', 'eleanor_somber_female_32')} />)
    const saved = screen.getByRole('group', { name: 'Saved voices' })
    expect(within(saved).getByRole('radio', { name: 'Ada narration' })).toBeTruthy()
    await user.type(screen.getByRole('searchbox'), 'ada')
    expect(radioNames()).toEqual(['eleanor_somber_female_32', ADA.id])
    rerender(<VoicePicker {...fixed('svc-tts-mini-0.8', 'Bella')} />)
    expect(screen.queryByRole('group', { name: 'Saved voices' })).toBeNull()
    expect(screen.queryByRole('radio', { name: 'Ada narration' })).toBeNull()
  })

  it('keeps a chosen saved voice visible when the list no longer holds it', () => {
    const gone = `voice_${'b'.repeat(32)}`
    render(<VoicePicker {...fixed('svc-tts-2-latest', gone)} />)
    const radio = screen.getByRole('radio', { name: gone }) as HTMLInputElement
    expect(radio.checked).toBe(true)
    expect(document.getElementById(radio.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'not among the organization’s saved voices · en',
    )
  })
})

function fixed(model: ModelId, value: string) {
  return { model, value, onChange: () => {}, savedVoices: [ADA], onSample: () => {} }
}
