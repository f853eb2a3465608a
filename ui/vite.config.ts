/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// The desktop shell loads `dist/` (tauri.conf.json: frontendDist) or the dev server on 5173.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024 },
  resolve: process.env.VITEST ? { conditions: ["browser"] } : undefined,
  test: {
    environment: "jsdom",
    include: ["tests/**/*.test.ts"],
    setupFiles: ["tests/setup.ts"],
    // A guard against a test that hangs, not a speed check: a table scrolled through
    // 90,000 rows takes a few seconds on a busy 2-core machine, more than the default 5.
    testTimeout: 30_000,
  },
});
