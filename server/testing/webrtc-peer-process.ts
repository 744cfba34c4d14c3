/**
 * A WebRTC peer in a process of its own (`node --import tsx server/testing/webrtc-peer-process.ts URL KEY`): it dials
 * the service, prints `open` once the data channel is open, then waits to be killed — a browser tab killed mid-call.
 */
import { callService } from './webrtc-peer.ts'

const [baseUrl, key] = process.argv.slice(2) as [string, string]
const call = await callService(baseUrl, key)
if (call.response.status !== 201) {
  console.log(`refused ${call.response.status}`)
  process.exit(1)
}
await call.opened
console.log('open')
setInterval(() => {}, 1 << 30)
