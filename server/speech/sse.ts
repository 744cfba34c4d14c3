/**
 * The one way the service writes server-sent events (contract 6.1 speech, 4.12 transcription): each event one `data:`
 * line of JSON and a blank line, no `event:` or `id:` fields. Name the event type, `sseFrame<SpeechSseEvent>(…)`, so
 * the event is checked against the contract.
 */
export function sseFrame<T extends object>(event: T): string {
  return sseJsonFrame(JSON.stringify(event))
}

/** The frame of an event already serialized as JSON (the audio deltas build theirs without a second scan). */
export function sseJsonFrame(json: string): string {
  return `data: ${json}\n\n`
}
