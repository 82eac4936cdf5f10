import { defineConfig } from '@playwright/test';

// The project's own unit tests: the harness, generators, reference server and reporter,
// tested in isolation. Conformance suites have their own config (../playwright.config.ts).
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  fullyParallel: true,
  forbidOnly: true,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: '../reports/out/unit-junit.xml' }]] : 'list',
  timeout: 60_000,
});
