import { ScriptPage } from './pages/script/ScriptPage.tsx'

export function App() {
  return (
    <>
      <header className="app-header">
        <span className="app-title">Speech Studio</span>
      </header>
      <main className="app-main">
        <ScriptPage />
      </main>
    </>
  )
}
