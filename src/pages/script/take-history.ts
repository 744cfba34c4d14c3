import type { NewTake, StoredTake, TakeSettings } from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import { ApiRequestError } from '../../api/http.ts'
import { deleteTake, fetchTakeAudio, updateTake, uploadTake } from '../../api/takes.ts'
import { useScript } from './script-store.ts'
import { type Take, type TakesStore, useTakes } from './takes-store.ts'

/**
 * The take history kept by the backend, seen from the page: each finished take is saved after it finishes (never on
 * the play path), a script's stored takes are loaded when it opens, and renames, stars and deletions go to the
 * backend. The takes store shows every change at once; a change the backend refuses is undone and said.
 */

/** The take's details as the backend keeps them. */
export function newTakeOf(take: Take): NewTake {
  const { input: _input, voice, ...rest } = take.request as Take['request'] & { input?: string }
  const reference = voice === undefined || (typeof voice === 'object' && !('id' in voice))
  const settings: TakeSettings = reference ? rest : { ...rest, voice: voice as TakeSettings['voice'] }
  return {
    line_id: take.lineId,
    text: take.text,
    settings,
    reference,
    status: take.status === 'incomplete' ? 'incomplete' : 'complete',
    final: take.final,
    time_to_first_audio_ms: take.timeToFirstAudioMs,
  }
}

/** The open script's id, saving a new script first so its takes have somewhere to go. */
async function scriptIdForSaving(): Promise<string | null> {
  if (useScript.getState().id === null) await useScript.getState().saveNow()
  const now = useScript.getState()
  if (now.id !== null || now.save !== 'saving') return now.id
  // An autosave already under way (saveNow leaves it be) gives the script its id when it ends.
  return new Promise((resolve) => {
    const unsubscribe = useScript.subscribe((s) => {
      if (s.id === null && s.save === 'saving') return
      unsubscribe()
      resolve(s.id)
    })
  })
}

/**
 * Saves a finished take. `timing` resolves with the play's time to first audio when this take started the play
 * (known only once the first sample is heard, which may be after the take's stream ended).
 */
export async function saveFinishedTake(
  takeId: string,
  timing: Promise<number | null> | null = null,
  store: TakesStore = useTakes,
): Promise<void> {
  if (timing) store.getState().setTimeToFirstAudio(takeId, await timing)
  const take = store.getState().takes.find((t) => t.id === takeId)
  if (!take || take.status === 'recording' || take.storedId !== null || take.pcm.length === 0) return
  try {
    const scriptId = await scriptIdForSaving()
    if (scriptId === null) throw new Error('The script is not saved yet, so its takes cannot be kept.')
    const { take: stored, dropped } = await uploadTake(scriptId, newTakeOf(take), take.pcm)
    const s = store.getState()
    // Deleted while it was being saved: the backend must forget it too.
    if (!s.takes.some((t) => t.id === takeId)) {
      await deleteTake(stored.id)
      return
    }
    s.stored(takeId, { storedId: stored.id, loudnessLufs: stored.loudness_lufs ?? null })
    s.applyDropped(dropped)
    // Starred or renamed while it was being saved.
    const now = store.getState().takes.find((t) => t.id === takeId)
    if (now && (now.starred || now.name !== null))
      await updateTake(stored.id, { starred: now.starred, ...(now.name !== null ? { name: now.name } : {}) })
  } catch (err) {
    store.getState().stored(takeId, { error: explainError(err).title })
  }
}

/** Merges a script's stored takes and fetches the audio of those not yet here, newest first. */
export async function loadStoredTakes(
  stored: readonly StoredTake[],
  signal?: AbortSignal,
  store: TakesStore = useTakes,
): Promise<void> {
  store.getState().loadStored(stored)
  const pending = store
    .getState()
    .takes.filter((t) => !t.audioReady)
    .reverse()
  for (const take of pending) {
    if (signal?.aborted) return
    // A take whose audio cannot be fetched now is fetched again when it is played or downloaded.
    await ensureAudio(take, signal, store).catch(() => {})
  }
}

const fetching = new Map<string, Promise<Int16Array>>()

/** The take's audio, fetched once from the backend when it is not here yet. */
export async function ensureAudio(
  take: Pick<Take, 'id' | 'pcm' | 'audioReady' | 'storedId'>,
  signal?: AbortSignal,
  store: TakesStore = useTakes,
): Promise<Int16Array> {
  if (take.audioReady !== false || take.storedId === null) return take.pcm
  const storedId = take.storedId
  let request = fetching.get(storedId)
  if (!request) {
    request = fetchTakeAudio(storedId, signal).finally(() => fetching.delete(storedId))
    fetching.set(storedId, request)
  }
  try {
    const pcm = await request
    store.getState().setAudio(take.id, pcm)
    return pcm
  } catch (err) {
    // Erased since the list came (the voice revoked meanwhile): the take becomes its record here too.
    if (err instanceof ApiRequestError && err.code === 'audio_erased')
      store.getState().markErased(take.id, { at: Date.now(), reason: 'voice_gone' })
    throw err
  }
}

/** Stars (or un-stars) a take here at once and on the backend; undone when the backend refuses. */
export async function starTake(
  takeId: string,
  starred: boolean,
  store: TakesStore = useTakes,
): Promise<void> {
  const before = store.getState().takes
  store.getState().star(takeId, starred)
  const take = store.getState().takes.find((t) => t.id === takeId)
  if (!take?.storedId) return
  try {
    await updateTake(take.storedId, { starred })
  } catch (err) {
    store.setState({ takes: before })
    throw err
  }
}

export async function renameTake(takeId: string, name: string | null, store: TakesStore = useTakes) {
  const take = store.getState().takes.find((t) => t.id === takeId)
  if (!take) return
  const trimmed = name?.trim() || null
  store.getState().rename(takeId, trimmed)
  if (!take.storedId) return
  try {
    await updateTake(take.storedId, { name: trimmed })
  } catch (err) {
    store.getState().rename(takeId, take.name)
    throw err
  }
}

export async function removeTake(takeId: string, store: TakesStore = useTakes): Promise<void> {
  const take = store.getState().takes.find((t) => t.id === takeId)
  if (!take) return
  store.getState().remove(takeId)
  if (!take.storedId) return
  try {
    await deleteTake(take.storedId)
  } catch (err) {
    store.setState({ takes: [...store.getState().takes, take].sort((a, b) => a.createdAt - b.createdAt) })
    throw err
  }
}
