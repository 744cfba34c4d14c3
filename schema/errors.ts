import { z } from 'zod'

/**
 * The two error shapes of contract 7: the envelope (authentication, model, rate-limit and decoding-range
 * errors) and the `detail` body (other parameter validation). Both carry the request id.
 */

export const errorEnvelopeSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
  request_id: z.string(),
})
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>

export const detailErrorSchema = z.object({
  detail: z.string(),
  param: z.string().nullable().optional(),
  request_id: z.string().optional(),
})
export type DetailError = z.infer<typeof detailErrorSchema>

export const apiErrorBodySchema = z.union([errorEnvelopeSchema, detailErrorSchema])
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>
