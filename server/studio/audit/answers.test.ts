import { describe, expect, it } from 'vitest'
import { consentRecordSchema } from '../../../schema/index.ts'
import { consentRecord } from './answers.ts'
import type { AuditEvent } from './store.ts'

const CONSENT = 'cons_0123456789abcdef0123456789abcdef'
let next = 1
const event = (e: Partial<AuditEvent> & Pick<AuditEvent, 'kind' | 'action' | 'upstreamId'>): AuditEvent => ({
  id: next++,
  at: 1_700_000_000 + next,
  user: 'cora',
  role: 'consent_admin',
  name: null,
  consentId: null,
  ...e,
})

describe("a consent's record", () => {
  it('says it came by link, from whom, and what its revocation erased, in the shape the page reads', () => {
    const events = [
      event({ kind: 'consent', action: 'created', upstreamId: CONSENT, name: 'Grace', via: 'link' }),
      event({
        kind: 'voice',
        action: 'created',
        upstreamId: 'voice_a',
        name: 'Grace calm',
        consentId: CONSENT,
      }),
      event({
        kind: 'consent',
        action: 'deleted',
        upstreamId: CONSENT,
        name: 'Grace',
        user: 'ann',
        role: 'admin',
      }),
      event({ kind: 'voice', action: 'revoked', upstreamId: 'voice_a', consentId: CONSENT, user: 'ann' }),
    ]
    const erasure = {
      id: 1,
      at: 1_700_000_100,
      owner: 'dana',
      takes: 7,
      voice_id: 'voice_a',
      consent_id: CONSENT,
      reason: 'consent_revoked' as const,
      by: 'ann',
    }
    const link = {
      ownerName: 'Grace',
      language: 'en-GB',
      createdBy: 'cora',
      createdAt: 1_699_999_000_500,
      usedAt: 1_699_999_500_900,
    }
    const record = consentRecordSchema.parse(
      consentRecord(CONSENT, { events, erasures: [erasure], link }, 1_700_000_200_000),
    )
    expect(record).toMatchObject({
      generated_at: 1_700_000_200,
      name: 'Grace',
      recorded: {
        how: 'link',
        by: 'cora',
        link: {
          requested_by: 'cora',
          owner_name: 'Grace',
          language: 'en-GB',
          requested_at: 1_699_999_000,
          used_at: 1_699_999_500,
        },
      },
      revoked: { by: 'ann', role: 'admin' },
      voices: [{ voice_id: 'voice_a', name: 'Grace calm', ended: { action: 'revoked', by: 'ann' } }],
      erased: [erasure],
    })
    expect(record.events).toHaveLength(4)
  })

  it('of a consent made at the service directly has no recording and keeps what the studio saw', () => {
    const events = [event({ kind: 'consent', action: 'deleted', upstreamId: CONSENT, name: 'Elsewhere' })]
    const record = consentRecord(CONSENT, { events, erasures: [], link: undefined })
    expect(record).toMatchObject({ name: 'Elsewhere', recorded: null, revoked: { by: 'cora' }, voices: [] })
  })
})
