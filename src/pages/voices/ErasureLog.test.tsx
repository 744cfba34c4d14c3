// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ErasureTable } from './ErasureLog.tsx'

afterEach(cleanup)

describe('the audit trail’s erased takes', () => {
  it('lists per designer how many takes lost their audio, why and by whom', () => {
    render(
      <ErasureTable
        erasures={[
          {
            id: 2,
            at: 1_764_633_600,
            owner: 'dana',
            takes: 3,
            voice_id: `voice_${'a'.repeat(32)}`,
            consent_id: `cons_${'b'.repeat(32)}`,
            reason: 'consent_revoked',
            by: 'cora',
          },
          {
            id: 1,
            at: 1_764_633_000,
            owner: 'eli',
            takes: 1,
            voice_id: `voice_${'c'.repeat(32)}`,
            consent_id: null,
            reason: 'voice_gone',
            by: null,
          },
        ]}
      />,
    )
    const table = screen.getByRole('table', { name: 'Takes erased by revocations, newest first' })
    const [, first, second] = within(table).getAllByRole('row')
    const cells = (row: HTMLElement | undefined) =>
      within(row as HTMLElement)
        .getAllByRole('cell')
        .slice(1, 5)
        .map((c) => c.textContent)
    expect(cells(first)).toEqual(['dana', '3', 'Consent revoked', 'cora'])
    expect(cells(second)).toEqual(['eli', '1', 'Voice gone from the speech service', 'Found by the studio'])
    expect(within(first as HTMLElement).getByRole('button', { name: 'Copy the voice id' })).toBeTruthy()
  })

  it('says so when nothing was erased', () => {
    render(<ErasureTable erasures={[]} />)
    expect(screen.getByText('No take has been erased: none was made with a revoked voice.')).toBeTruthy()
  })
})
