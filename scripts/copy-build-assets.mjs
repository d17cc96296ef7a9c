// Part of `npm run build`: tsc compiles the TypeScript only; the files the compiled code reads next to
// itself at run time (the pages' CSS and browser scripts, and the contract) are copied into dist/.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ASSET = /\.(css|js|html|svg|png|woff2?)$/;

function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, path.join(to, entry.name));
    else if (ASSET.test(entry.name)) cpSync(source, path.join(to, entry.name));
  }
}

for (const dir of ['src', 'admin']) copyAssets(dir, path.join('dist', dir));
cpSync('openapi.yaml', 'dist/openapi.yaml');
