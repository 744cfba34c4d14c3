/** Small pure helpers of the voices page: shortened ids, dates, the busy-retry policy, validation. */

import { canonicalLanguageTag } from '../../../schema/index.ts'

/**
 * An id shortened for display: its prefix, the first and the last four characters (`voice_3f2a…9c01`). The full id
 * is only copied, never shown in logs.
 */
export function shortId(id: string): string {
  const cut = id.indexOf('_')
  const prefix = cut >= 0 ? id.slice(0, cut + 1) : ''
  const rest = id.slice(prefix.length)
  if (rest.length <= 10) return id
  return `${prefix}${rest.slice(0, 4)}…${rest.slice(-4)}`
}

/** A Unix time in seconds as a local date and time. */
export function formatWhen(unixSeconds: number, locale?: string): string {
  return new Date(unixSeconds * 1000).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * A busy voice creation (429 `custom_voice_creation_busy`) is retried by itself with the shared backoff
 * (`capacityDelayMs`), starting longer than a speech request's: preparing a voice takes seconds, not milliseconds.
 */
export const VOICE_CREATION_RETRY = { maxAttempts: 4, baseMs: 5_000, capMs: 60_000 } as const

/** Why a language tag is not accepted, or null with the tag in canonical case. */
export function checkLanguageTag(
  tag: string,
): { tag: string; problem: null } | { tag: null; problem: string } {
  const trimmed = tag.trim()
  if (!trimmed) return { tag: null, problem: 'Enter the language of the recording, such as en-US.' }
  const canonical = canonicalLanguageTag(trimmed)
  if (!canonical)
    return {
      tag: null,
      problem: `"${trimmed}" is not a language tag of the form xx or xx-XX, such as en, en-US or de-DE.`,
    }
  return { tag: canonical, problem: null }
}

/**
 * The line above the consent list. Consents come a page at a time, so while older ones are still to load the count
 * is of those loaded (21 consents must never read "20 consents").
 */
export function consentCount(list: {
  loaded: number
  more: boolean
  search: string
  matching: number
}): string {
  const { loaded, more, search, matching } = list
  if (loaded === 0) return 'No consents yet. Record one above.'
  if (search) return `${matching} of the ${loaded} loaded consents match “${search}”.`
  if (more) return `The newest ${loaded} consents; older ones load below.`
  return `${loaded} consent${loaded === 1 ? '' : 's'}, newest first.`
}
