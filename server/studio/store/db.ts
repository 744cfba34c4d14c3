// Temporary: bench/ (owned elsewhere) still imports this old path; delete once its imports name the feature folders.
export { openStudioDb, openStudioStorage, type StudioStorage } from '../database.ts'
