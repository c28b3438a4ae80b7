import { fileURLToPath } from 'node:url';

// The shared app (../src) built into ./dist; the line.wav the check copies in is public.
// The inline limit is raised so the worklet (11 KB) is inlined as a `data:` URL — the
// path where a worklet importing a module of its own cannot load; webpack's app covers
// the worklet copied as a file.
export default {
  root: fileURLToPath(new URL('../src', import.meta.url)),
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  build: { assetsInlineLimit: 48 * 1024, outDir: fileURLToPath(new URL('./dist', import.meta.url)), emptyOutDir: true, target: 'es2022' },
  logLevel: 'warn',
};
