import { defineConfig } from "vitest/config";

// No Vite plugins: Vitest's built-in esbuild transform compiles TS/TSX using tsconfig.json
// ("jsx": "react-jsx" gives the automatic React runtime).
export default defineConfig({
  test: {
    environment: "jsdom",
    include: ["static_src/**/__tests__/*.test.{ts,tsx}"],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
