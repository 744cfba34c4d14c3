// Builds the app when dist/ is missing or older than any of its sources (the browser's code, and schema/ and core/, which
// it shares with the servers), so `npm start` works on a fresh clone.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const SOURCES = ['src', 'schema', 'core', 'public', 'index.html', 'vite.config.ts', 'package-lock.json']
const STAMP = 'dist/index.html'

function newest(path) {
  if (!existsSync(path)) return 0
  const st = statSync(path)
  if (!st.isDirectory()) return st.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0
if (Math.max(...SOURCES.map(newest)) > built) {
  console.log('Building the studio…')
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
}
