/**
 * A socket to one of the studio backend's bridges (`/api` + `path`: live transcription, live speech), which adds the
 * service's credential so the browser never holds one. JSON text messages go to `onMessage`; `opened` on close tells
 * a session that ended from one that never started (refused or unreachable). Returns the socket and a sender that
 * drops events once it is no longer open.
 */
export function openBridgeSocket(
  path: string,
  query: URLSearchParams,
  handlers: {
    onOpen(): void
    onMessage(data: unknown): void
    onClose(info: { code: number; reason: string; opened: boolean }): void
  },
) {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws'
  const socket = new WebSocket(`${scheme}://${window.location.host}/api${path}?${query}`)
  let opened = false
  socket.onopen = () => {
    opened = true
    handlers.onOpen()
  }
  socket.onmessage = (message) => {
    if (typeof message.data === 'string') handlers.onMessage(JSON.parse(message.data))
  }
  socket.onclose = (event) => handlers.onClose({ code: event.code, reason: event.reason, opened })
  const send = (event: object) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(event))
  }
  return { socket, send }
}
