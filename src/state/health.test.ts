import { describe, expect, it } from 'vitest'
import type { Health } from '../api/health.ts'
import { ApiRequestError } from '../api/http.ts'
import { healthProblems } from './health.ts'

const healthy: Health = {
  status: 'ok',
  upstream: { kind: 'embedded', reachable: true },
  engines: { synthesis: true, recognition: true, diarization: true },
}

function degraded(patch: {
  upstream?: Partial<Health['upstream']>
  engines?: Partial<Health['engines']>
}): Health {
  return {
    status: 'degraded',
    upstream: { ...healthy.upstream, ...patch.upstream },
    engines: { ...healthy.engines, ...patch.engines },
  }
}

describe('healthProblems', () => {
  it('says nothing when all is well or before the first answer', () => {
    expect(healthProblems(healthy, null)).toEqual([])
    expect(healthProblems(undefined, null)).toEqual([])
  })

  it('names a missing engine and how to get it on the embedded service', () => {
    const problems = healthProblems(degraded({ engines: { recognition: false } }), null)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^Speech recognition is not available/)
    expect(problems[0]).toContain('install the Debian packages pocketsphinx and pocketsphinx-en-us')
  })

  it('lists every missing engine, one sentence each', () => {
    const problems = healthProblems(degraded({ engines: { synthesis: false, diarization: false } }), null)
    expect(problems.map((p) => p.split(',')[0])).toEqual([
      'Speech synthesis is not available',
      'Speaker labels are not available',
    ])
  })

  it('points at SVC_BASE_URL for a remote service instead of local packages', () => {
    const [problem] = healthProblems(
      degraded({ upstream: { kind: 'remote' }, engines: { recognition: false } }),
      null,
    )
    expect(problem).toContain('SVC_BASE_URL')
    expect(problem).not.toContain('pocketsphinx')
  })

  it('reports an unreachable service alone, since its engines are then unknown', () => {
    const problems = healthProblems(
      degraded({ upstream: { reachable: false }, engines: { synthesis: false, recognition: false } }),
      null,
    )
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^The local speech service is not answering/)
    const [remote] = healthProblems(degraded({ upstream: { kind: 'remote', reachable: false } }), null)
    expect(remote).toMatch(/SVC_BASE_URL is not answering/)
  })

  it('still says something when degraded for another reason', () => {
    expect(healthProblems({ ...healthy, status: 'degraded' }, null)).toHaveLength(1)
  })

  it('explains a failed health request', () => {
    expect(healthProblems(undefined, new TypeError('Failed to fetch'))[0]).toMatch(/backend is not answering/)
    expect(healthProblems(undefined, new ApiRequestError(500, null, null))[0]).toContain('answered 500')
    expect(healthProblems(undefined, new Error('bad shape'))[0]).toMatch(/cannot read/)
  })
})
