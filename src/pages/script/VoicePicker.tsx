import { useId, useMemo, useState } from 'react'
import { builtinVoicesFor, isSecondGen, type ModelId, type VoiceGroup } from '../../../schema/index.ts'
import { isSavedVoice } from './settings.ts'
import './settings.css'

/** The catalog's groups as the contract numbers them (2.2), and the organization's saved voices. */
export const GROUP_LABELS: Record<VoiceGroup | 'saved', string> = {
  character: 'Character voices (01–09)',
  counterpart: '0.8 counterparts (10–17)',
  descriptive: 'Descriptive voices (18–37)',
  language: 'Languages (38–47)',
  legacy: '0.8 voices',
  saved: 'Saved voices',
}

/** One of the organization's saved voices (catalog type `saved`). */
export interface SavedVoiceOption {
  id: string
  name: string
}

interface VoiceOption {
  id: string
  /** What the list shows: the id of a built-in voice, the given name of a saved one. */
  name: string
  group: VoiceGroup | 'saved'
  language: string
  description: string
}

/** Saved voices speak English only (contract 2.2). */
const SAVED_LANGUAGE = 'en'

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' })

function primaryLanguage(tag: string): string {
  return tag.split('-')[0] ?? tag
}

function languageName(tag: string): string {
  return languageNames.of(primaryLanguage(tag)) ?? tag
}

function voiceOptions(model: ModelId, saved: readonly SavedVoiceOption[], selected: string): VoiceOption[] {
  const options: VoiceOption[] = builtinVoicesFor(model).map((v) => ({ ...v, name: v.id }))
  if (!isSecondGen(model)) return options
  for (const v of saved)
    options.push({
      id: v.id,
      name: v.name,
      group: 'saved',
      language: SAVED_LANGUAGE,
      description: 'saved voice',
    })
  // A chosen saved voice that left the list (deleted, or the list still loading) stays visible as chosen.
  if (isSavedVoice(selected) && !saved.some((v) => v.id === selected))
    options.push({
      id: selected,
      name: selected,
      group: 'saved',
      language: SAVED_LANGUAGE,
      description: 'not among the organization’s saved voices',
    })
  return options
}

function matches(option: VoiceOption, words: readonly string[], language: string): boolean {
  if (language && primaryLanguage(option.language) !== language) return false
  const text = [option.id, option.name, option.description, option.language, languageName(option.language)]
    .join(' ')
    .toLowerCase()
  return words.every((w) => text.includes(w))
}

export interface VoicePickerProps {
  model: ModelId
  value: string
  onChange(voice: string): void
  savedVoices: readonly SavedVoiceOption[]
  /** Play a short sample in that voice. */
  onSample(voiceId: string): void
  legend?: string
  /** Unique ids and radio names when two pickers are on the page. */
  idPrefix?: string
}

/**
 * The voices of `model` as a radio group per catalog group, with a search over id, description and language and a
 * language filter. The chosen voice stays listed whatever the filter, so the group always has its checked radio.
 */
export function VoicePicker({
  model,
  value,
  onChange,
  savedVoices,
  onSample,
  legend = 'Voice',
  idPrefix,
}: VoicePickerProps) {
  const generatedId = useId()
  const id = idPrefix ?? generatedId
  const [query, setQuery] = useState('')
  const [language, setLanguage] = useState('')
  const options = useMemo(() => voiceOptions(model, savedVoices, value), [model, savedVoices, value])
  const languages = [...new Set(options.map((o) => primaryLanguage(o.language)))]
  // A language the newly chosen model lacks filters nothing.
  const activeLanguage = languages.includes(language) ? language : ''
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  const matching = options.filter((o) => matches(o, words, activeLanguage))
  const shown = options.filter((o) => o.id === value || matching.includes(o))
  const groups = [...new Set(shown.map((o) => o.group))]
  const chosen = options.find((o) => o.id === value)
  // One sample button is a tab stop, the chosen voice's (else the first shown): arrows pick a voice, Tab reaches
  // its sample, and a keyboard user does not tab through dozens of buttons to leave the list.
  const sampleStop = chosen && shown.includes(chosen) ? chosen.id : shown[0]?.id

  return (
    <fieldset className="voice-picker">
      <legend>{legend}</legend>
      <div className="voice-filters">
        <div className="field">
          <label htmlFor={`${id}-search`}>Search voices</label>
          <input
            id={`${id}-search`}
            type="search"
            value={query}
            autoComplete="off"
            aria-describedby={`${id}-count`}
            onChange={(e) => setQuery(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-language`}>Language</label>
          <select id={`${id}-language`} value={activeLanguage} onChange={(e) => setLanguage(e.target.value)}>
            <option value="">All languages</option>
            {languages.map((l) => (
              <option key={l} value={l}>
                {languageName(l)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="voice-chosen">
        Chosen:{' '}
        {chosen ? (
          <>
            <strong>{chosen.name}</strong> ({chosen.description}, {chosen.language})
          </>
        ) : (
          <>
            <strong>{value}</strong> (not a voice of {model})
          </>
        )}
      </p>
      <p id={`${id}-count`} className="hint" aria-live="polite">
        {matching.length === options.length
          ? `${options.length} voices`
          : `${matching.length} of ${options.length} voices match`}
      </p>
      <div className="voice-panel">
        {groups.map((group) => (
          <fieldset key={group} className="voice-group">
            <legend>{GROUP_LABELS[group]}</legend>
            <ul>
              {shown
                .filter((o) => o.group === group)
                .map((o) => {
                  const rowId = `${id}-voice-${o.id}`
                  const outside = !matching.includes(o)
                  return (
                    <li key={o.id} className={o.id === value ? 'voice-row chosen' : 'voice-row'}>
                      <input
                        type="radio"
                        id={rowId}
                        name={`${id}-voice`}
                        value={o.id}
                        checked={o.id === value}
                        aria-describedby={`${rowId}-about`}
                        onChange={() => onChange(o.id)}
                      />
                      <label htmlFor={rowId}>{o.name}</label>
                      <span id={`${rowId}-about`} className="voice-about">
                        {o.description} · {o.language}
                        {outside && ' · chosen, outside the search'}
                      </span>
                      <button
                        type="button"
                        tabIndex={o.id === sampleStop ? 0 : -1}
                        aria-label={`Play sample of ${o.name}`}
                        onClick={() => onSample(o.id)}
                      >
                        Play sample
                      </button>
                    </li>
                  )
                })}
            </ul>
          </fieldset>
        ))}
      </div>
    </fieldset>
  )
}
