import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// base "./": asset URLs are relative to the page's <base href>, which the server writes (under PUBLIC_URL's path when
// set), so one build serves under `/console` and under any proxy prefix.
export default defineConfig({
  base: "./",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
});
