// @vitest-environment jsdom
import { act, cleanup, renderHook } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiRequestError, type UploadProgress } from '../../api/http.ts'
import { isCreationBusy } from './failures.ts'
import { ANSWER_LIMIT_MS, SLOW_AFTER_MS } from './save-progress.ts'
import { type BusyRetry, type SaveJob, useSave } from './useSave.ts'

const words = { checking: 'Checking the sample…', slow: 'Other voices may come first.' }
const retry: BusyRetry = {
  when: isCreationBusy,
  policy: { maxAttempts: 2, baseMs: 5_000, capMs: 60_000 },
  reason: 'The service is busy creating other voices.',
  gaveUp: { what: 'Stayed busy.', next: 'Later.' },
}

/**
 * A request the test answers by hand, as the service would: it reports its upload, then waits; it ends when
 * answered, refused, or aborted by its signal (as apiUpload's XMLHttpRequest does).
 */
function request() {
  const attempts: Array<{
    signal: AbortSignal
    progress: (p: UploadProgress) => void
    answer: (name: string) => void
    refuse: (err: unknown) => void
  }> = []
  const job: SaveJob<string> = {
    send: ({ onProgress, signal }) =>
      new Promise<string>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))
        attempts.push({ signal, progress: onProgress, answer: resolve, refuse: reject })
      }),
    saved: async (name) => `Saved ${name}.`,
    failed: (err) => ({ what: `Failed: ${(err as Error).message}`, next: 'Try again.' }),
  }
  return { job, attempts }
}

const busyAnswer = () =>
  new ApiRequestError(
    429,
    {
      error: {
        message: 'Busy.',
        type: 'rate_limit_error',
        param: null,
        code: 'custom_voice_creation_busy',
      },
      request_id: 'req_1',
    },
    'req_1',
  )

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  cleanup()
  vi.useRealTimers()
})

describe('useSave', () => {
  it('names each step, says when the wait is long, and stops waiting for an overdue answer', async () => {
    const refresh = vi.fn()
    const { result } = renderHook(() => useSave('the voice', words, refresh, retry))
    const { job, attempts } = request()
    act(() => result.current.start(job))
    expect(result.current.status?.label).toBe('Uploading… 0%')
    act(() => attempts[0]?.progress({ loaded: 50, total: 100 }))
    expect(result.current.status?.label).toBe('Uploading… 50%')
    act(() => attempts[0]?.progress({ loaded: 100, total: 100 }))
    expect(result.current.status?.label).toBe('Checking the sample… 0:00')

    await act(() => vi.advanceTimersByTimeAsync(SLOW_AFTER_MS))
    expect(result.current.status?.label).toBe('Checking the sample… 0:20')
    expect(result.current.status?.slow).toBe('This is taking longer than usual. Other voices may come first.')
    expect(result.current.busy).toBe(true)

    await act(() => vi.advanceTimersByTimeAsync(ANSWER_LIMIT_MS - SLOW_AFTER_MS))
    expect(attempts[0]?.signal.aborted).toBe(true)
    expect(result.current.busy).toBe(false)
    expect(result.current.failure?.what).toBe(
      'The service has not answered in 4 minutes, so the page stopped waiting for the voice.',
    )
    // The service may have finished after all: the lists are asked again.
    expect(refresh).toHaveBeenCalledTimes(1)
  })

  it('cancels at once while the answer is awaited, aborting the request', async () => {
    const refresh = vi.fn()
    const { result } = renderHook(() => useSave('the voice', words, refresh, retry))
    const { job, attempts } = request()
    act(() => result.current.start(job))
    act(() => attempts[0]?.progress({ loaded: 100, total: 100 }))
    act(() => result.current.cancel())
    expect(attempts[0]?.signal.aborted).toBe(true)
    expect(result.current.busy).toBe(false)
    expect(result.current.message).toMatch(
      /^Saving the voice was cancelled\. If the service had already finished/,
    )
    expect(result.current.failure).toBeNull()
    expect(refresh).toHaveBeenCalledTimes(1)
    // The aborted request's rejection says nothing more.
    await act(() => vi.advanceTimersByTimeAsync(1_000))
    expect(result.current.failure).toBeNull()
  })

  it('waits out a busy service with a countdown, tries again, and says when it stayed busy', async () => {
    const { result } = renderHook(() => useSave('the voice', words, vi.fn(), retry))
    const { job, attempts } = request()
    act(() => result.current.start(job))
    await act(async () => attempts[0]?.refuse(busyAnswer()))
    expect(result.current.state).toMatchObject({ step: 'waiting', attempt: 2 })
    expect(result.current.message).toMatch(
      /^The service is busy creating other voices\. Trying again by itself/,
    )
    await act(async () => result.current.retryNow())
    expect(result.current.state).toMatchObject({ step: 'uploading', attempt: 2 })
    await act(async () => attempts[1]?.refuse(busyAnswer()))
    expect(result.current.busy).toBe(false)
    expect(result.current.failure).toEqual(retry.gaveUp)
  })

  it('reports the saved result, and a failure in the form’s words', async () => {
    const { result } = renderHook(() => useSave('the voice', words, vi.fn(), retry))
    const first = request()
    act(() => result.current.start(first.job))
    await act(async () => first.attempts[0]?.answer('Ada'))
    expect(result.current).toMatchObject({ busy: false, message: 'Saved Ada.', failure: null })
    const second = request()
    act(() => result.current.start(second.job))
    await act(async () => second.attempts[0]?.refuse(new Error('refused')))
    expect(result.current.failure?.what).toBe('Failed: refused')
  })
})
