import { useQuery } from '@tanstack/react-query'
import { type EngineName, type Health, healthQuery } from '../api/health.ts'
import { ApiRequestError } from '../api/http.ts'

/** The backend's health report, refreshed every 30 s (src/api/health.ts), and what it means in plain words. */

export function useHealth() {
  return useQuery(healthQuery)
}

const RESTART = 'restart the studio (Ctrl-C, then npm start)'

const ENGINE_PROBLEMS: Record<EngineName, { what: string; embeddedFix: string }> = {
  synthesis: {
    what: 'Speech synthesis is not available, so lines cannot be previewed',
    embeddedFix: `the eSpeak NG engine did not start. Look in the studio's log for the reason, then ${RESTART}.`,
  },
  recognition: {
    what: 'Speech recognition is not available, so recordings cannot be transcribed',
    embeddedFix: `install the Debian packages pocketsphinx and pocketsphinx-en-us, then ${RESTART}.`,
  },
  diarization: {
    what: 'Speaker labels are not available, so transcripts cannot say who is speaking',
    embeddedFix: `the speaker segmentation model (server/engine/segmentation/pyannote-segmentation-3.0.int8.onnx) is missing or damaged. Restore it from the repository (git checkout -- server/engine/segmentation), then ${RESTART}.`,
  },
}

/**
 * The problems to tell people about, one sentence each: what is missing and what to do. Empty when all is well.
 * `error` is the failure of fetching the report itself.
 */
export function healthProblems(health: Health | undefined, error: unknown): string[] {
  if (!health) {
    if (!error) return []
    if (error instanceof ApiRequestError) {
      return [
        `The studio backend could not report its health (it answered ${error.status}). Reload the page; if it persists, ${RESTART}.`,
      ]
    }
    if (error instanceof TypeError) {
      return [
        'The studio backend is not answering. Check that npm start is still running, then reload this page.',
      ]
    }
    return [
      `The studio backend sent a health report this page cannot read. Reload the page; if it persists, ${RESTART}.`,
    ]
  }

  if (!health.upstream.reachable) {
    return [
      health.upstream.kind === 'embedded'
        ? `The local speech service is not answering, so nothing can be generated or transcribed: ${RESTART}.`
        : 'The speech service set in SVC_BASE_URL is not answering, so nothing can be generated or transcribed. ' +
          'Check that it is running and reachable from this machine (or remove SVC_BASE_URL to use the built-in ' +
          `service), then ${RESTART}.`,
    ]
  }

  const problems = (Object.keys(ENGINE_PROBLEMS) as EngineName[])
    .filter((engine) => !health.engines[engine])
    .map((engine) => {
      const { what, embeddedFix } = ENGINE_PROBLEMS[engine]
      return health.upstream.kind === 'embedded'
        ? `${what}: ${embeddedFix}`
        : `${what}: the speech service set in SVC_BASE_URL does not offer it. Use a service that does, or remove SVC_BASE_URL to use the built-in one.`
    })
  if (problems.length === 0 && health.status === 'degraded') {
    return [
      `The studio reports that something is not working. Look in the studio's log for the reason, then ${RESTART}.`,
    ]
  }
  return problems
}
