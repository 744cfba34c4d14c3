import type { BrowserHeaders } from './studio.ts'
import { placeCall, type TestCall } from './webrtc-peer.ts'

/**
 * The test peer of webrtc-peer.ts placing its call through the studio backend as the browser does
 * (`POST /api/v1/realtime/calls` with the session cookie and CSRF token, server/studio/live/calls.ts).
 */
export interface StudioCall extends TestCall {
  /** `DELETE` of the call with these headers (default: the caller's own). */
  hangUp(headers?: BrowserHeaders): Promise<Response>
}

export async function callThroughStudio(studioBase: string, headers: BrowserHeaders): Promise<StudioCall> {
  const call = await placeCall((offer) =>
    fetch(`${studioBase}/api/v1/realtime/calls`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/sdp', origin: studioBase },
      body: offer,
    }),
  )
  return {
    ...call,
    hangUp: (as = headers) =>
      fetch(`${studioBase}${call.location}`, { method: 'DELETE', headers: { ...as, origin: studioBase } }),
  }
}
