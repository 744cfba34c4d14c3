import { expect, test as setup } from '@playwright/test'
import { e2eClusterAdmin, e2eClusterState } from '../playwright.config.ts'

/** Signs the cluster's admin in through the front and keeps the session for the cluster projects' browsers. */
setup('sign the admin in to the cluster', async ({ page }) => {
  const answer = await page.request.post('/api/auth/sign-in', {
    data: { name: e2eClusterAdmin.name, password: e2eClusterAdmin.password },
  })
  expect(answer.status(), await answer.text()).toBe(200)
  await page.context().storageState({ path: e2eClusterState })
})
