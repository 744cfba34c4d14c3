import { z } from 'zod'
import { canonicalLanguageTag, NAME_MAX_CHARS } from './consents.ts'

/**
 * Remote consent (the studio's own contract, spec-free): a consent administrator asks a voice's owner for their
 * consent through a one-time link (`/consent/<token>`); the owner records it on their own device without an account.
 */

/** The link's secret: 32 random bytes as base64url (256 bits), never stored (the studio keeps its SHA-256). */
export const consentLinkTokenPattern = /^[A-Za-z0-9_-]{43}$/
export const consentRequestIdPattern = /^creq_[0-9a-f]{32}$/

/** `POST /api/consent-requests`: whose consent is asked for, and in which language they will speak. */
export const newConsentRequestSchema = z.strictObject({
  owner_name: z
    .string()
    .trim()
    .min(1, 'Enter the name of the voice’s owner.')
    .max(NAME_MAX_CHARS)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), 'A name cannot hold control characters.'),
  language: z
    .string()
    .max(16)
    .refine((tag) => canonicalLanguageTag(tag) !== null, 'Enter a language tag such as en-US.')
    .transform((tag) => canonicalLanguageTag(tag) as string),
})
export type NewConsentRequest = z.input<typeof newConsentRequestSchema>

export const CONSENT_REQUEST_STATUSES = ['open', 'used', 'revoked'] as const

/** A request as its administrators see it. Times in milliseconds. */
export const consentRequestSchema = z.object({
  id: z.string().regex(consentRequestIdPattern),
  object: z.literal('consent_request'),
  owner_name: z.string(),
  language: z.string(),
  created_by: z.string(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  status: z.enum(CONSENT_REQUEST_STATUSES),
})
export type ConsentRequest = z.infer<typeof consentRequestSchema>

/** The answer to a creation: the request and the only time its link is ever shown (`path`, under the studio). */
export const createdConsentRequestSchema = consentRequestSchema.extend({
  path: z.string().regex(/^\/consent\/[A-Za-z0-9_-]{43}$/),
})
export type CreatedConsentRequest = z.infer<typeof createdConsentRequestSchema>

/** `GET /api/consent-requests`: the requests still open (not used, revoked or expired), newest first. */
export const consentRequestListSchema = z.object({
  object: z.literal('list'),
  data: z.array(consentRequestSchema),
})
export type ConsentRequestList = z.infer<typeof consentRequestListSchema>

/** `GET /api/consent-links/<token>`: what the owner's page says — who asks, for whom, in which language, until when. */
export const consentLinkSchema = z.object({
  object: z.literal('consent_link'),
  owner_name: z.string(),
  language: z.string(),
  requested_by: z.string(),
  expires_at: z.number().int(),
})
export type ConsentLink = z.infer<typeof consentLinkSchema>

/** `POST /api/consent-links/<token>`: the consent was recorded; the link is used up. */
export const consentLinkRecordedSchema = z.object({
  object: z.literal('consent_link.recorded'),
  owner_name: z.string(),
  language: z.string(),
})
export type ConsentLinkRecorded = z.infer<typeof consentLinkRecordedSchema>
