// Bundles the dashboard into ../internal/lab/webui/dist (embedded by Go):
// app.js and app.css (uPlot included), and index.html. No CDN, no fonts.
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';

const out = '../internal/lab/webui/dist';
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await build({
  entryPoints: { app: 'src/main.js' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  outdir: out,
  legalComments: 'eof',
  logLevel: 'warning',
});
await copyFile('index.html', `${out}/index.html`);
