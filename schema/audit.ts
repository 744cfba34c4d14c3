import { z } from 'zod'
import { takeErasureSchema } from './takes.ts'

/**
 * The studio backend's audit trail of consents and voices (`GET /api/audit`, `GET /api/audit/origins`): who created,
 * deleted or revoked which, and when. Spec-free: the studio's own contract.
 */

export const AUDIT_KINDS = ['consent', 'voice'] as const
export type AuditKind = (typeof AUDIT_KINDS)[number]
/** `revoked`: a voice that went with its consent's deletion. */
export const AUDIT_ACTIONS = ['created', 'deleted', 'revoked'] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** How a consent reached the service, where not through the studio's own form: `link`, recorded remotely by its owner. */
export const AUDIT_VIAS = ['link'] as const
export type AuditVia = (typeof AUDIT_VIAS)[number]

export const auditEventSchema = z.object({
  id: z.number().int(),
  /** Unix time in seconds. */
  at: z.number().int(),
  /** The studio user who made the change (a later removal of the user leaves the name here). */
  user: z.string(),
  role: z.string(),
  kind: z.enum(AUDIT_KINDS),
  action: z.enum(AUDIT_ACTIONS),
  /** The service's id of the consent or voice. */
  upstream_id: z.string(),
  name: z.string().nullable(),
  /** For voices: the consent the voice was bound to, when known. */
  consent_id: z.string().nullable(),
  /** Null: made with the studio's forms by `user`; `link`: recorded remotely through a link `user` created. */
  via: z.enum(AUDIT_VIAS).nullable().default(null),
})
export type AuditEvent = z.infer<typeof auditEventSchema>

/** `GET /api/audit`: one page of the trail, newest first; `next_before` asks for the page after it. */
export const auditPageSchema = z.object({
  object: z.literal('list'),
  data: z.array(auditEventSchema),
  has_more: z.boolean(),
  next_before: z.number().int().nullable(),
})
export type AuditPage = z.infer<typeof auditPageSchema>

/** `GET /api/audit/origins`: the creation event of every consent and voice still live. */
export const auditOriginsSchema = z.object({
  object: z.literal('list'),
  data: z.array(auditEventSchema),
})
export type AuditOrigins = z.infer<typeof auditOriginsSchema>

/**
 * `GET /api/audit/consents/:id/record`: everything the studio knows of one consent, for a dispute years later — who
 * recorded it and how (at the administrator's form, or by its owner through a link and who sent the link), its
 * voices and what ended them, its revocation, and what the revocation erased (takes per designer and voice). The
 * studio keeps these rows after the consent is gone, so a revoked consent has a record too.
 */
export const consentRecordSchema = z.object({
  object: z.literal('consent_record'),
  consent_id: z.string(),
  /** Unix time in seconds. */
  generated_at: z.number().int(),
  name: z.string().nullable(),
  /** Null when the consent was not recorded through this studio (it was made at the service directly). */
  recorded: z
    .object({
      at: z.number().int(),
      by: z.string(),
      role: z.string(),
      how: z.enum(['in_person', 'link']),
      /** For `link`: the request the owner answered. */
      link: z
        .object({
          requested_by: z.string(),
          requested_at: z.number().int(),
          owner_name: z.string(),
          language: z.string(),
          used_at: z.number().int().nullable(),
        })
        .nullable(),
    })
    .nullable(),
  revoked: z.object({ at: z.number().int(), by: z.string(), role: z.string() }).nullable(),
  voices: z.array(
    z.object({
      voice_id: z.string(),
      name: z.string().nullable(),
      created_at: z.number().int().nullable(),
      created_by: z.string().nullable(),
      /** How it ended: deleted on its own, or revoked with the consent. */
      ended: z
        .object({ at: z.number().int(), by: z.string(), action: z.enum(['deleted', 'revoked']) })
        .nullable(),
    }),
  ),
  erased: z.array(takeErasureSchema),
  /** Every audit event behind the above, oldest first. */
  events: z.array(auditEventSchema),
})
export type ConsentRecord = z.infer<typeof consentRecordSchema>
