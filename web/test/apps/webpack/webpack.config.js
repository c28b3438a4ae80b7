import { fileURLToPath } from 'node:url';
import { copyFileSync, mkdirSync } from 'node:fs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

// The shared app (../src) built into ./dist; index.html and the line.wav the check puts
// in ./public are copied next to the bundle.
export default {
  mode: 'production',
  entry: here('../src/main.js'),
  output: { path: here('./dist'), filename: 'main.js', clean: true },
  experiments: { topLevelAwait: true },
  stats: 'errors-warnings',
  performance: { hints: false },
  plugins: [{
    apply(compiler) {
      compiler.hooks.afterEmit.tap('copy-static', () => {
        mkdirSync(here('./dist'), { recursive: true });
        copyFileSync(here('../src/index.html'), here('./dist/index.html'));
        copyFileSync(here('./public/line.wav'), here('./dist/line.wav'));
      });
    },
  }],
};
