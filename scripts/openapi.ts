/** `npm run openapi`: writes docs/openapi.json from the shared schemas (a test checks it is current). */
import { writeFileSync } from 'node:fs'
import { buildOpenApiDocument } from '../server/speech/openapi.ts'

writeFileSync('docs/openapi.json', `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`)
console.log('wrote docs/openapi.json')
