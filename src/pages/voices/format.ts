/** Small pure helpers of the voices page: shortened ids, dates, retry delays, validation. */

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

/** The first automatic retry of a busy voice creation waits about this long; each next one twice as long. */
export const BUSY_BASE_DELAY_MS = 5_000
export const BUSY_MAX_DELAY_MS = 60_000
export const BUSY_MAX_ATTEMPTS = 4

/**
 * How long to wait before retry number `attempt` (1-based) after a 429: exponential from 5 s, capped at 60 s, with
 * full jitter over its upper half, and never less than the service's Retry-After.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterSeconds: number | null,
  random = Math.random,
): number {
  const exponential = Math.min(BUSY_MAX_DELAY_MS, BUSY_BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1))
  const jittered = exponential / 2 + random() * (exponential / 2)
  return Math.round(Math.max(jittered, (retryAfterSeconds ?? 0) * 1000))
}

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

/** Bytes as "3.2 MB" for file sizes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
