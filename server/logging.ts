/**
 * Log redaction for both servers: keys, voice and consent ids, continuation, session and consent-link tokens are masked in
 * every line before it is written, whatever part of a log entry they ended up in (URL, message, error, header).
 */
const SECRETS: Array<[RegExp, string]> = [
  [/\b(sk|ek)_[A-Za-z0-9_-]{8,}/g, '$1_[redacted]'],
  [/\b(voice|cons)_[0-9a-f]{32}\b/g, '$1_[redacted]'],
  [/(\/continuations\/)[0-9a-f]{32}/g, '$1[redacted]'],
  // A consent link's token, in the owner's page and its API paths (studio/consent-requests/routes.ts).
  [/(\/consent(?:-links)?\/)[A-Za-z0-9_-]{43}/g, '$1[redacted]'],
  [/(studio_session=)[^;\s"]+/g, '$1[redacted]'],
  [/(Bearer\s+)[^\s"]+/gi, '$1[redacted]'],
]

export function redactSecrets(text: string): string {
  return SECRETS.reduce((s, [pattern, replacement]) => s.replace(pattern, replacement), text)
}

export interface LogSink {
  write(line: string): void
}

/** Fastify logger options whose output passes through `redactSecrets`. */
export function redactingLogger(level: string, sink: LogSink = process.stdout) {
  return { level, stream: { write: (line: string) => sink.write(redactSecrets(line)) } }
}
