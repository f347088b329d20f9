// The dashboard's build: React with Vite, into dist/ (the gateway serves it at the site root).
// `npm ci` builds it (this workspace's `prepare`); `npm run build -w @simrs/dashboard` rebuilds it.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The gateway's budget for the first load: JS and CSS together under 250 KB gzipped.
    chunkSizeWarningLimit: 600,
  },
  // `npm run dev -w @simrs/dashboard` proxies the API to a running `npm start` stack.
  server: {
    proxy: {
      '/api': 'http://localhost:8080',
      '/trpc': 'http://localhost:8080',
      '/auth': 'http://localhost:8080',
    },
  },
});
