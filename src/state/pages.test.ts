import { describe, expect, it } from 'vitest'
import { mayUse, pagesFor, resolvePath, rolesFor } from './pages.ts'

describe('pages by role', () => {
  it('gives each role its pages, in navigation order', () => {
    expect(pagesFor('designer').map((p) => p.label)).toEqual(['Script'])
    expect(pagesFor('consent_admin').map((p) => p.label)).toEqual(['Voices'])
    expect(pagesFor('reviewer').map((p) => p.label)).toEqual(['Transcripts'])
    expect(pagesFor('admin').map((p) => p.label)).toEqual(['Script', 'Voices', 'Transcripts'])
  })

  it('says who may use a page', () => {
    expect(mayUse('designer', 'voices')).toBe(false)
    expect(mayUse('admin', 'voices')).toBe(true)
    expect(rolesFor('transcripts')).toEqual(['reviewer', 'admin'])
  })
})

describe('resolvePath', () => {
  it("opens the role's first page at /", () => {
    expect(resolvePath('/', 'designer')).toMatchObject({ kind: 'page', page: { id: 'script' } })
    expect(resolvePath('/', 'consent_admin')).toMatchObject({ kind: 'page', page: { id: 'voices' } })
    expect(resolvePath('/', 'reviewer')).toMatchObject({ kind: 'page', page: { id: 'transcripts' } })
    expect(resolvePath('', 'admin')).toMatchObject({ kind: 'page', page: { id: 'script' } })
  })

  it('tolerates a trailing slash and capitals', () => {
    expect(resolvePath('/Voices/', 'admin')).toMatchObject({ kind: 'page', page: { id: 'voices' } })
  })

  it('tells a page the role may not use from one that does not exist', () => {
    expect(resolvePath('/voices', 'designer')).toMatchObject({ kind: 'forbidden', page: { id: 'voices' } })
    expect(resolvePath('/users', 'admin')).toEqual({ kind: 'not-found', path: '/users' })
    expect(resolvePath('/script/extra', 'designer')).toMatchObject({ kind: 'not-found' })
  })
})
