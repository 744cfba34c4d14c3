/**
 * A request never succeeds with silence (docs/api.md, "Text that cannot be spoken"): the audio is held back until its
 * first sound, and text that gave none is refused with a 400 naming what could not be spoken. Holding back costs no
 * time in practice: the engine already drops a stream's leading silence before its first chunk goes out.
 */
import { findMarkup } from '../../../schema/markup.ts'
import { isSilent } from '../../engine/index.ts'
import { type ApiError, badRequest } from '../errors.ts'

export interface HeldAudio {
  /** The audio in full, the chunks held back included. */
  audio: AsyncGenerator<Int16Array>
  /** The audio ended without a sound. */
  silent: boolean
}

/** Reads `pcm` up to its first chunk with a sound; errors while waiting surface here, before any response is sent. */
export async function untilSound(pcm: AsyncGenerator<Int16Array>): Promise<HeldAudio> {
  const held: Int16Array[] = []
  for (;;) {
    const next = await pcm.next()
    if (next.done) return { audio: replay(held), silent: true }
    held.push(next.value)
    if (!isSilent(next.value)) return { audio: replay(held, pcm), silent: false }
  }
}

async function* replay(held: Int16Array[], rest?: AsyncGenerator<Int16Array>): AsyncGenerator<Int16Array> {
  try {
    yield* held
    if (rest) yield* { [Symbol.asyncIterator]: () => rest }
  } finally {
    // A consumer that stops early, even among the held chunks, closes the engine's generator: synthesis stops.
    await rest?.return(undefined)
  }
}

/** Silence is the answer only to an input that asks for it: a <pause> on the second-generation model. */
export function asksForSilence(input: string, markup: boolean): boolean {
  return markup && findMarkup(input).some((m) => m.kind === 'sound' && m.text.toLowerCase() === '<pause>')
}

const LISTED = 6

/** The 400 for an input that gave no sound: its characters other than spaces, punctuation and markup tags. */
export function nothingToSpeak(input: string, markup: boolean): ApiError {
  let text = input
  const tags = markup ? findMarkup(input).filter((m) => m.kind !== 'emphasis') : []
  if (tags.length > 0) {
    for (const m of tags.reverse()) {
      text = text.slice(0, m.start) + text.slice(m.end)
    }
  }
  const unspoken = [...new Set(text.replace(/[\s\p{P}]/gu, ''))]
  if (unspoken.length === 0) {
    const what = tags.length > 0 ? 'spaces, punctuation and markup tags' : 'spaces and punctuation'
    return badRequest(`input has nothing to speak: it holds only ${what}.`, 'input')
  }
  const named = unspoken
    .slice(0, LISTED)
    .map((c) => `"${c}" (U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')})`)
  const more = unspoken.length > LISTED ? ` and ${unspoken.length - LISTED} more` : ''
  return badRequest(`input has nothing that can be spoken: ${named.join(', ')}${more}.`, 'input')
}
