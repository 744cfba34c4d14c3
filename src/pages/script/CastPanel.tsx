import { type FormEvent, useId, useState } from 'react'
import {
  builtinVoicesFor,
  type CastMember,
  isSpeakerName,
  type LineOverride,
  MAX_CAST_MEMBERS,
  MAX_CAST_NAME_CHARS,
  speakerKey,
  spokenLine,
  type VoiceSettings,
} from '../../../schema/index.ts'
import { LineOverrideForm } from './SettingsForm.tsx'
import { compactOverride, effectiveSettings } from './settings.ts'
import type { SavedVoiceOption } from './VoicePicker.tsx'
import './cast.css'

/**
 * The script's cast: who speaks the lines that start with their name ("ALICE: Hello."), in which voice and settings.
 * Each member's settings are a partial override of the script's, edited with the line form's fields.
 */

export interface CastPanelProps {
  cast: readonly CastMember[]
  onChange(cast: CastMember[]): void
  script: VoiceSettings
  lines: readonly { text: string }[]
  savedVoices: readonly SavedVoiceOption[]
  /** Play a sample of `voice` in this member's other settings. */
  onSample(voice: string, settings: VoiceSettings): void
}

/** Why a name cannot join the cast, or null when it can. */
export function castNameProblem(name: string, cast: readonly CastMember[]): string | null {
  if (name === '') return 'Write the name as the lines start with it, such as ALICE.'
  if (!isSpeakerName(name))
    return `A name is 1 to 3 words, each starting with a capital letter, at most ${MAX_CAST_NAME_CHARS} characters, as a line starts with it (“ALICE: Hello”).`
  if (cast.some((m) => speakerKey(m.name) === speakerKey(name))) return `${name} is in the cast already.`
  if (cast.length >= MAX_CAST_MEMBERS) return `A cast holds at most ${MAX_CAST_MEMBERS} members.`
  return null
}

/**
 * A new member's voice: the first of the script model's voices that neither the script nor another member uses, so
 * a dialogue is heard as two voices from the start; none when every voice is taken.
 */
export function freshVoice(script: VoiceSettings, cast: readonly CastMember[]): string | undefined {
  const used = new Set([script.voice, ...cast.map((m) => effectiveSettings(script, m.settings).voice)])
  return builtinVoicesFor(script.model).find((v) => !used.has(v.id))?.id
}

/** A member joining the cast under `name` (spacing collapsed), with a voice of their own. */
export function newCastMember(name: string, script: VoiceSettings, cast: readonly CastMember[]): CastMember {
  const voice = freshVoice(script, cast)
  return { name: name.trim().replace(/\s+/g, ' '), settings: voice ? { voice } : {} }
}

export function CastPanel({ cast, onChange, script, lines, savedVoices, onSample }: CastPanelProps) {
  const id = useId()
  const [name, setName] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const spoken = (member: CastMember) =>
    lines.filter((l) => spokenLine(l.text, cast).member?.name === member.name).length

  const add = (e: FormEvent) => {
    e.preventDefault()
    const wanted = name.trim().replace(/\s+/g, ' ')
    const why = castNameProblem(wanted, cast)
    setProblem(why)
    if (why) return
    onChange([...cast, newCastMember(wanted, script, cast)])
    setName('')
  }
  const update = (member: CastMember, settings: LineOverride | undefined) =>
    onChange(cast.map((m) => (m === member ? { ...m, settings: compactOverride(settings) ?? {} } : m)))
  const remove = (member: CastMember) => onChange(cast.filter((m) => m !== member))

  return (
    <section aria-labelledby={`${id}-heading`} className="cast-panel">
      <h2 id={`${id}-heading`}>Cast</h2>
      <p className="hint">
        A line that starts with a cast member’s name and a colon (ALICE: Hello) is spoken in their voice,
        without the name. A line’s own settings come first, then its cast member’s, then the script’s.
      </p>
      <form className="cast-add" onSubmit={add} noValidate>
        <label htmlFor={`${id}-name`}>Cast member name</label>
        <input
          id={`${id}-name`}
          type="text"
          value={name}
          maxLength={MAX_CAST_NAME_CHARS + 10}
          autoComplete="off"
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-problem` : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit">Add cast member</button>
        {problem && (
          <span id={`${id}-problem`} className="field-error">
            {problem}
          </span>
        )}
      </form>
      {cast.length === 0 ? (
        <p className="hint">No cast: every line is spoken in the script’s voice.</p>
      ) : (
        <ul className="cast-members">
          {cast.map((member, i) => {
            const count = spoken(member)
            const voice = effectiveSettings(script, member.settings).voice
            const saved = savedVoices.find((v) => v.id === voice)
            return (
              <li key={speakerKey(member.name)}>
                <details>
                  <summary>
                    {member.name}{' '}
                    <span className="hint">
                      {saved ? `${saved.name} (saved)` : voice} · {count} {count === 1 ? 'line' : 'lines'}
                    </span>
                  </summary>
                  <LineOverrideForm
                    script={script}
                    value={member.settings}
                    onChange={(settings) => update(member, settings)}
                    savedVoices={savedVoices}
                    onSample={(voice) =>
                      onSample(voice, { ...effectiveSettings(script, member.settings), voice })
                    }
                    idPrefix={`${id}-member-${i}`}
                    subject={member.name}
                  />
                </details>
                <button type="button" className="cast-remove" onClick={() => remove(member)}>
                  Remove {member.name} from the cast
                </button>
              </li>
            )
          })}
        </ul>
      )}
    </section>
  )
}
