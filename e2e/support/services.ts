/** How many seeded services the browser tests run on: one project, one worker at a time and one
 * data dir each (playwright.config.ts deals the spec files; globalSetup.ts starts the services). */
export const SERVICES = 2;
