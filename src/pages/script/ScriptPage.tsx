import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import {
  builtinVoicesFor,
  defaultVoiceFor,
  MODELS,
  type ModelId,
  type VoiceGroup,
} from '../../../schema/index.ts'
import { listVoices } from '../../api/client.ts'
import { PlaybackStats } from '../../components/PlaybackStats.tsx'
import { usePlayback } from '../../state/playback.ts'

const GROUP_LABELS: Record<VoiceGroup, string> = {
  character: 'Character voices',
  counterpart: '0.8 counterparts',
  descriptive: 'Descriptive voices',
  language: 'Languages',
  legacy: 'Voices',
}

const STATUS_TEXT = {
  idle: 'Ready.',
  streaming: 'Generating…',
  playing: 'Playing…',
  done: 'Finished.',
  stopped: 'Stopped.',
  incomplete: 'The stream broke before it was complete. Play again to make a new take.',
  error: 'Something went wrong.',
} as const

export function ScriptPage() {
  const [model, setModel] = useState<ModelId>('svc-tts-2-latest')
  const [voice, setVoice] = useState(defaultVoiceFor('svc-tts-2-latest'))
  const [text, setText] = useState('')
  const { status, stats, timeToFirstAudioMs, error, play, stop } = usePlayback()
  const voices = builtinVoicesFor(model)
  const groups = [...new Set(voices.map((v) => v.group))]
  // The organization's saved voices come from the service's catalog. Its query key starts with 'voices', which
  // the voices page invalidates after a voice is created or deleted or a consent revoked.
  const catalog = useQuery({
    queryKey: ['voices', model],
    queryFn: ({ signal }) => listVoices(model, signal),
  })
  const saved = catalog.data?.filter((v) => v.type === 'saved') ?? []
  const isSaved = voice.startsWith('voice_')
  const savedGone = isSaved && catalog.isSuccess && !saved.some((v) => v.id === voice)
  useEffect(() => {
    // A saved voice deleted or revoked meanwhile leaves the picker; the model's default takes its place.
    if (savedGone) setVoice(defaultVoiceFor(model))
  }, [savedGone, model])
  const busy = status === 'streaming' || status === 'playing'

  return (
    <section aria-labelledby="script-heading" className="page">
      <h1 id="script-heading">Preview a line</h1>
      <form
        className="controls"
        onSubmit={(e) => {
          e.preventDefault()
          if (text.trim()) void play({ model, voice: isSaved ? { id: voice } : voice, input: text })
        }}
      >
        <label>
          Model
          <select
            value={model}
            onChange={(e) => {
              const next = e.target.value as ModelId
              setModel(next)
              setVoice(defaultVoiceFor(next))
            }}
          >
            {MODELS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Voice
          <select value={voice} onChange={(e) => setVoice(e.target.value)}>
            {groups.map((g) => (
              <optgroup key={g} label={GROUP_LABELS[g]}>
                {voices
                  .filter((v) => v.group === g)
                  .map((v) => (
                    <option key={v.id} value={v.id}>
                      {v.id} ({v.language})
                    </option>
                  ))}
              </optgroup>
            ))}
            {saved.length > 0 && (
              <optgroup label="Saved voices">
                {saved.map((v) => (
                  <option key={v.id} value={v.id}>
                    {v.name} (saved)
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </label>
        <label className="wide">
          Text
          <textarea value={text} onChange={(e) => setText(e.target.value)} rows={4} maxLength={40_000} />
        </label>
        <div className="buttons">
          <button type="submit" disabled={!text.trim()}>
            Play
          </button>
          <button type="button" onClick={() => void stop()} disabled={!busy}>
            Stop
          </button>
        </div>
      </form>
      <p role="status" className={`status status-${status}`}>
        {STATUS_TEXT[status]} {status === 'error' && error}
      </p>
      <PlaybackStats stats={stats} timeToFirstAudioMs={timeToFirstAudioMs} />
    </section>
  )
}
