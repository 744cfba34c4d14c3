/** `npm run openapi`: writes docs/openapi.json from the service's routes (a test checks it is current). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSpeechService } from '../server/speech/app.ts'

// The document is made from the registered routes, so a service is built (on a throwaway directory) and never listens.
const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'))
try {
  const service = await createSpeechService({ dataDir })
  await service.app.ready()
  writeFileSync('docs/openapi.json', `${JSON.stringify(service.app.swagger(), null, 2)}\n`)
  await service.close()
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
console.log('wrote docs/openapi.json')
