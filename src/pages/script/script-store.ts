import { create } from 'zustand'
import {
  type CastMember,
  defaultVoiceFor,
  type LineOverride,
  type SavedScript,
  type ScriptDocument,
  type ScriptLine,
  SECOND_GEN_MODEL,
  type VoiceSettings,
} from '../../../schema/index.ts'
import { createScript, getScript, listScripts, ScriptConflictError, saveScript } from '../../api/scripts.ts'
import { linesToText, newLineId, reconcileLines } from './line-ids.ts'

/**
 * The open script and its saving. Every edit is saved shortly after typing stops; a save names the revision it was
 * made on, so a script changed in another browser meanwhile is never overwritten silently (the designer chooses).
 */

export type SaveState = 'new' | 'saved' | 'dirty' | 'saving' | 'conflict' | 'error'

const AUTOSAVE_DELAY_MS = 800

export interface ScriptState {
  id: string | null
  revision: number | null
  title: string
  settings: VoiceSettings
  lines: ScriptLine[]
  /** Who speaks the lines that start with their name (settings.ts resolveLine). */
  cast: CastMember[]
  save: SaveState
  saveError: string | null
  /** The version saved elsewhere when ours was refused as stale. */
  theirs: SavedScript | null
  loading: boolean
  /** Opens the most recently edited script, or starts a new one when there is none. */
  loadLatest(): Promise<void>
  open(id: string): Promise<void>
  newScript(): void
  setTitle(title: string): void
  setSettings(settings: VoiceSettings): void
  setLines(lines: ScriptLine[]): void
  setOverride(lineId: string, override: LineOverride | undefined): void
  setCast(cast: CastMember[]): void
  /** Locks a line (its chosen take kept, never made again, its text read-only) or unlocks it. */
  setLocked(lineId: string, locked: boolean): void
  /** Replaces the script's text (import); lines whose text is unchanged keep their ids. */
  importText(text: string, title?: string): void
  saveNow(): Promise<void>
  /** After a conflict: take the other browser's version, or save ours over it. */
  resolveConflict(choice: 'theirs' | 'mine'): Promise<void>
}

function defaultSettings(): VoiceSettings {
  return { model: SECOND_GEN_MODEL, voice: defaultVoiceFor(SECOND_GEN_MODEL) }
}

function blankLines(): ScriptLine[] {
  return [{ id: newLineId(), text: '' }]
}

function documentOf(s: Pick<ScriptState, 'title' | 'settings' | 'lines' | 'cast'>): ScriptDocument {
  return { title: s.title.trim() || 'Untitled script', settings: s.settings, lines: s.lines, cast: s.cast }
}

let timer: ReturnType<typeof setTimeout> | null = null

export const useScript = create<ScriptState>((set, get) => {
  const fromSaved = (saved: SavedScript) =>
    set({
      id: saved.id,
      revision: saved.revision,
      title: saved.title,
      settings: saved.settings,
      lines: saved.lines,
      cast: saved.cast,
      save: 'saved',
      saveError: null,
      theirs: null,
    })

  const edited = (patch: Partial<ScriptState>) => {
    set({ ...patch, save: get().save === 'conflict' ? 'conflict' : 'dirty' })
    if (get().save === 'conflict') return
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => void get().saveNow(), AUTOSAVE_DELAY_MS)
  }

  return {
    id: null,
    revision: null,
    title: 'Untitled script',
    settings: defaultSettings(),
    lines: blankLines(),
    cast: [],
    save: 'new',
    saveError: null,
    theirs: null,
    loading: false,

    async loadLatest() {
      set({ loading: true })
      try {
        const [latest] = await listScripts()
        if (latest) fromSaved(await getScript(latest.id))
      } catch (err) {
        set({ save: 'error', saveError: (err as Error).message })
      } finally {
        set({ loading: false })
      }
    },

    async open(id) {
      if (get().save === 'dirty') await get().saveNow()
      fromSaved(await getScript(id))
    },

    newScript() {
      if (timer) clearTimeout(timer)
      set({
        id: null,
        revision: null,
        title: 'Untitled script',
        settings: get().settings,
        lines: blankLines(),
        cast: [],
        save: 'new',
        saveError: null,
        theirs: null,
      })
    },

    setTitle: (title) => edited({ title }),
    setSettings: (settings) => edited({ settings }),
    setLines: (lines) => edited({ lines }),
    setCast: (cast) => edited({ cast }),
    setOverride(lineId, override) {
      edited({
        lines: get().lines.map((l) => {
          if (l.id !== lineId) return l
          const { override: _old, ...rest } = l
          return override ? { ...rest, override } : rest
        }),
      })
    },
    setLocked(lineId, locked) {
      edited({
        lines: get().lines.map((l) => {
          if (l.id !== lineId) return l
          const { locked: _old, ...rest } = l
          return locked ? { ...rest, locked: true } : rest
        }),
      })
    },
    importText(text, title) {
      const before = new Map(get().lines.map((l) => [l.id, l.text]))
      // An imported file replaces the script: a locked line whose text the file does not hold is replaced, unlocked.
      const lines = reconcileLines(get().lines, text.replace(/\r\n?/g, '\n')).map((l) => {
        if (!l.locked || before.get(l.id) === l.text) return l
        const { locked: _locked, ...rest } = l
        return rest
      })
      edited(title ? { lines, title } : { lines })
    },

    async saveNow() {
      if (timer) clearTimeout(timer)
      timer = null
      const s = get()
      if (s.save === 'saving' || s.save === 'conflict') return
      set({ save: 'saving', saveError: null })
      const doc = documentOf(s)
      try {
        const saved =
          s.id === null || s.revision === null
            ? await createScript(doc)
            : await saveScript(s.id, doc, s.revision)
        // Edits made while saving stay dirty and are saved next.
        const now = get()
        const unchanged =
          now.title === s.title && now.settings === s.settings && now.lines === s.lines && now.cast === s.cast
        set({ id: saved.id, revision: saved.revision, save: unchanged ? 'saved' : 'dirty' })
        if (!unchanged) timer = setTimeout(() => void get().saveNow(), AUTOSAVE_DELAY_MS)
      } catch (err) {
        if (err instanceof ScriptConflictError) set({ save: 'conflict', theirs: err.script })
        else set({ save: 'error', saveError: (err as Error).message })
      }
    },

    async resolveConflict(choice) {
      const theirs = get().theirs
      if (!theirs) return
      if (choice === 'theirs') {
        fromSaved(theirs)
        return
      }
      set({ revision: theirs.revision, theirs: null, save: 'dirty' })
      await get().saveNow()
    },
  }
})

/** The script as plain text, one line per line (export). */
export function scriptText(lines: readonly ScriptLine[]): string {
  return `${linesToText(lines)}\n`
}
