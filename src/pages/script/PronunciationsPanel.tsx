import { useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useState } from 'react'
import { PlsError, readPls, writePls } from '../../../core/pls.ts'
import { MODELS, type ModelId, PHONEME_INPUT, pronunciationInputSchema } from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import {
  addPronunciation,
  deletePronunciation,
  importPronunciations,
  PRONUNCIATIONS_KEY,
  type PronunciationInput,
  pronunciationsQuery,
} from '../../api/pronunciations.ts'
import { saveBlob } from '../../components/saveBlob.ts'
import { useHealth } from '../../state/health.ts'
import { usePronunciations } from './pronunciations-store.ts'
import './pronunciations.css'

/**
 * The "Pronunciations" region: the studio's lexicon, shared by its designers and applied to every request the page
 * sends (pronunciations-store.ts). Says per model whether phonemes are honoured or the respelling is sent instead.
 */
export function PronunciationsPanel({ model }: { model: ModelId }) {
  const id = useId()
  const queryClient = useQueryClient()
  const list = useQuery(pronunciationsQuery)
  const health = useHealth()
  const upstream = health.data?.upstream.kind
  const [text, setText] = useState('')
  const [sayAs, setSayAs] = useState('')
  const [phonemes, setPhonemes] = useState('')
  const [caseSensitive, setCaseSensitive] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [status, setStatus] = useState('')
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (list.data) usePronunciations.getState().setEntries(list.data)
  }, [list.data])
  useEffect(() => usePronunciations.getState().setUpstream(upstream), [upstream])

  const refresh = () => queryClient.invalidateQueries({ queryKey: PRONUNCIATIONS_KEY })
  const run = async (work: () => Promise<string>) => {
    setBusy(true)
    setProblem(null)
    setStatus('')
    try {
      setStatus(await work())
    } catch (err) {
      setProblem(
        err instanceof PlsError
          ? `This file is not a pronunciation lexicon. ${err.message}`
          : explainError(err).title,
      )
    } finally {
      setBusy(false)
      await refresh()
    }
  }

  const add = (e: FormEvent) => {
    e.preventDefault()
    const entry: PronunciationInput = { text, say_as: sayAs, case_sensitive: caseSensitive }
    if (phonemes.trim()) entry.phonemes = phonemes
    const parsed = pronunciationInputSchema.safeParse(entry)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = { text: 'Word or phrase', say_as: 'Say it as', phonemes: 'Phonemes (IPA)' }[
        String(issue?.path[0])
      ]
      setProblem(`${field ?? 'The entry'}: ${issue?.message ?? 'not valid'}.`)
      return
    }
    void run(async () => {
      const added = await addPronunciation(parsed.data)
      setText('')
      setSayAs('')
      setPhonemes('')
      return `Added “${added.text}”.`
    })
  }

  const exportPls = () => {
    const entries = (list.data ?? []).map((e) => ({
      text: e.text,
      sayAs: e.say_as,
      phonemes: e.phonemes,
      caseSensitive: e.case_sensitive,
    }))
    saveBlob(new Blob([writePls(entries)], { type: 'application/pls+xml' }), 'pronunciations.pls')
  }

  const importPls = (file: File) =>
    run(async () => {
      const lexicon = readPls(await file.text())
      if (lexicon.entries.length === 0) throw new Error('The file holds no lexeme.')
      const entries = lexicon.entries.map((e) => {
        const entry = {
          text: e.text,
          say_as: e.sayAs,
          case_sensitive: e.caseSensitive,
          ...(e.phonemes ? { phonemes: e.phonemes } : {}),
        }
        const parsed = pronunciationInputSchema.safeParse(entry)
        if (!parsed.success)
          throw new Error(`“${e.text}” cannot be kept: ${parsed.error.issues[0]?.message ?? 'not valid'}.`)
        return parsed.data
      })
      const result = await importPronunciations(entries)
      const skipped = lexicon.skipped.length > 0 ? ` Not taken: ${lexicon.skipped.join(' ')}` : ''
      return `Imported ${entries.length} from ${file.name}: ${result.added} added, ${result.replaced} replaced.${skipped}`
    })

  const remove = (entryId: string, word: string) =>
    void run(async () => {
      await deletePronunciation(entryId)
      return `Deleted “${word}”.`
    })

  const entries = list.data ?? []
  return (
    <section aria-labelledby={`${id}-heading`} className="pronunciations-panel">
      <h2 id={`${id}-heading`}>Pronunciations</h2>
      <p className="hint">
        Shared by every designer of this studio. Each match in the script (whole words) is sent as its
        respelling, or as its phonemes where the model honours them.
      </p>
      <PhonemeSupport model={model} upstream={upstream} />
      <form className="pronunciation-form" onSubmit={add}>
        <label>
          Word or phrase
          <input value={text} maxLength={100} onChange={(e) => setText(e.target.value)} required />
        </label>
        <label>
          Say it as
          <input value={sayAs} maxLength={200} onChange={(e) => setSayAs(e.target.value)} required />
        </label>
        <label>
          Phonemes (IPA)
          <input
            value={phonemes}
            maxLength={200}
            onChange={(e) => setPhonemes(e.target.value)}
            placeholder="optional, e.g. təˈmɑːtoʊ"
            lang="und-fonipa"
          />
        </label>
        <label className="pronunciation-case">
          <input
            type="checkbox"
            checked={caseSensitive}
            onChange={(e) => setCaseSensitive(e.target.checked)}
          />
          Match case as written
        </label>
        <button type="submit" disabled={busy}>
          Add pronunciation
        </button>
      </form>
      <div aria-live="polite">
        {problem && (
          <p className="problem" role="alert">
            {problem}
          </p>
        )}
        {status && <p className="hint">{status}</p>}
      </div>
      {list.isError && <p className="problem">{explainError(list.error).title}</p>}
      {entries.length === 0 ? (
        <p className="hint">No pronunciations yet.</p>
      ) : (
        <ul className="pronunciation-list" aria-label="Pronunciations of this studio">
          {entries.map((e) => (
            <li key={e.id}>
              <span>
                <strong>{e.text}</strong> → {e.say_as}
                {e.phonemes && (
                  <>
                    {' '}
                    <span lang="und-fonipa">/{e.phonemes}/</span>
                  </>
                )}
                <span className="hint"> · {e.case_sensitive ? 'case as written' : 'any case'}</span>
              </span>
              <button
                type="button"
                onClick={() => remove(e.id, e.text)}
                aria-label={`Delete pronunciation of ${e.text}`}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="buttons">
        <button type="button" onClick={exportPls} disabled={entries.length === 0}>
          Export pronunciations (PLS)
        </button>
        <label className="file-button">
          Import pronunciations (PLS)
          <input
            type="file"
            accept=".pls,.xml,application/pls+xml,application/xml,text/xml"
            onChange={(e) => {
              const file = e.target.files?.[0]
              if (file) void importPls(file)
              e.target.value = ''
            }}
          />
        </label>
      </div>
    </section>
  )
}

/** Per model: phonemes honoured, or the respelling sent in their place. Never left unsaid. */
function PhonemeSupport({
  model,
  upstream,
}: {
  model: ModelId
  upstream: 'embedded' | 'remote' | undefined
}) {
  if (!upstream) return <p className="hint">Checking which models honour phonemes…</p>
  const where = upstream === 'embedded' ? 'the built-in eSpeak NG service' : 'the hosted speech service'
  return (
    <div className="phoneme-support">
      <p className="hint">Phonemes with {where}:</p>
      <ul>
        {MODELS.map((m) => (
          <li key={m} aria-current={m === model ? 'true' : undefined}>
            {m}
            {m === model && ' (this script)'}:{' '}
            {PHONEME_INPUT[upstream][m]
              ? 'respellings and phonemes honoured'
              : 'phonemes not honoured — the respelling is sent instead'}
          </li>
        ))}
      </ul>
    </div>
  )
}
