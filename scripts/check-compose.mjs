// `npm run check:compose [compose file]`: fails when a docker-compose.yml command (or the image's own
// CMD/ENTRYPOINT it falls back on) names a file the image built from the Dockerfile would not contain.
// The worker once ran `node --import tsx src/worker.ts` in an image that ships dist/ only, and nothing
// noticed: there is no Docker engine on the CI machine, so the image's files are derived statically:
//   - COPY from the build context: the repository's files, minus .dockerignore;
//   - COPY --from=<stage>: what that stage holds, recursively;
//   - RUN npm ci [--omit=dev]: node_modules with the packages package-lock.json marks for that install;
//   - RUN npm run build: dist/ as tsc (tsconfig.build.json) and scripts/copy-build-assets.mjs fill it,
//     from the sources the stage holds at that point; any other RUN produces nothing this check knows.
// Paths outside the final stage's WORKDIR (/usr/bin/tini) come from the base image: not checked.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (file) => readFileSync(path.join(root, file), 'utf8');
// What the model of `npm run build` below assumes; a changed build script must update it.
const BUILD_SCRIPT = 'tsc -p tsconfig.build.json && node scripts/copy-build-assets.mjs';
const BUILD_ASSET = /\.(css|js|html|svg|png|woff2?)$/; // scripts/copy-build-assets.mjs's ASSET
const BUILD_ASSET_DIRS = ['src', 'admin'];
// Node options whose value is a module to load (a bare name is a package in node_modules), or a file.
const MODULE_OPTIONS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);
const FILE_OPTIONS = new Set(['--env-file']);
const SCRIPT_FILE = /\.(m?js|cjs|m?ts|cts|tsx|json|ya?ml|sh)$/;

// ---- the Dockerfile -----------------------------------------------------------------------------

/** Instructions with continuations joined and comments dropped: [{ op, args }]. */
function instructions(text) {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, op, args] = /^(\S+)\s*(.*)$/.exec(line);
      return { op: op.toUpperCase(), args };
    });
}

/** `["a", "b"]` (exec form) or `a b` (shell form, split on blanks: good enough for file names). */
function argv(value) {
  if (Array.isArray(value)) return value.map(String);
  const text = String(value ?? '').trim();
  return text.startsWith('[') ? JSON.parse(text) : text.split(/\s+/).filter(Boolean);
}

function parseDockerfile(file) {
  const args = {};
  const stages = [];
  for (const { op, args: rest } of instructions(read(file))) {
    const expand = (s) => s.replace(/\$\{?(\w+)\}?/g, (_, name) => args[name] ?? '');
    const stage = stages.at(-1);
    if (op === 'ARG') {
      const [name, value = ''] = rest.split('=');
      args[name] ??= value;
    } else if (op === 'FROM') {
      const [, image, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      const base = stages.find((s) => s.name === expand(image));
      stages.push({
        name: name ?? String(stages.length),
        base, // another stage, or undefined for an image from a registry
        workdir: base?.workdir ?? '/',
        layers: [],
        cmd: base?.cmd,
        entrypoint: base?.entrypoint,
      });
    } else if (op === 'WORKDIR') {
      stage.workdir = path.posix.resolve(stage.workdir, expand(rest));
    } else if (op === 'COPY' || op === 'ADD') {
      const words = rest.trim().startsWith('[') ? JSON.parse(rest) : rest.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--')).map(expand);
      const dest = paths.pop();
      const source = from && stages.find((s) => s.name === from);
      const multiple = paths.length > 1;
      stage.layers.push({ kind: 'copy', from: source, sources: paths, dest, multiple, workdir: stage.workdir });
    } else if (op === 'RUN') {
      stage.layers.push({ kind: 'run', command: rest, workdir: stage.workdir });
    } else if (op === 'CMD') {
      stage.cmd = argv(rest);
    } else if (op === 'ENTRYPOINT') {
      stage.entrypoint = argv(rest);
      stage.cmd = undefined; // Docker drops an inherited CMD when ENTRYPOINT is set
    }
  }
  return stages;
}

// ---- what a stage holds -------------------------------------------------------------------------

function dockerIgnore() {
  if (!existsSync(path.join(root, '.dockerignore'))) return () => false;
  const rules = read('.dockerignore')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
      const glob = pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '\0')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        .replace(/\0/g, '.*');
      return { negated, regex: new RegExp(`^${glob}(/.*)?$`) };
    });
  // the last rule that matches decides, as in Docker
  return (rel) => rules.reduce((ignored, rule) => (rule.regex.test(rel) ? !rule.negated : ignored), false);
}
const ignored = dockerIgnore();

/** A file or folder of this checkout: 'file', 'dir' or null. */
function localEntry(rel) {
  const full = path.join(root, rel);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? 'dir' : 'file';
}

/** A file or folder of the build context (the checkout less .dockerignore). */
function contextEntry(rel) {
  const clean = path.posix.normalize(rel).replace(/^\.\/?|\/$/g, '');
  return clean && ignored(clean) ? null : localEntry(clean);
}

const lock = JSON.parse(read('package-lock.json'));
const packageJson = JSON.parse(read('package.json'));

/** `RUN npm ci`: node_modules as the lockfile installs it (without dev packages under --omit=dev). */
function npmCiEntry(command, rel) {
  if (rel === 'node_modules') return 'dir';
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel)?.[1];
  const locked = pkg && lock.packages?.[`node_modules/${pkg}`];
  if (!locked || (/--omit[= ]dev|--production/.test(command) && locked.dev)) return null;
  return localEntry(rel); // the package's files as the local install has them
}

/** `RUN npm run build`: <outDir>/<path>.js(.map) for each TypeScript source tsconfig.build.json includes. */
function buildEntry(stage, upto, workdir, rel) {
  if (packageJson.scripts?.build !== BUILD_SCRIPT) {
    const actual = packageJson.scripts?.build;
    throw new Error(`check-compose models \`npm run build\` as "${BUILD_SCRIPT}", not "${actual}": update the model`);
  }
  // JSON with comments: TypeScript's own reader
  const tsconfig = ts.parseConfigFileTextToJson('tsconfig.build.json', read('tsconfig.build.json')).config;
  const { outDir = 'dist', rootDir = '.' } = tsconfig.compilerOptions ?? {};
  const out = path.posix.normalize(outDir);
  if (rel === out) return 'dir';
  if (!rel.startsWith(`${out}/`)) return null;
  const inner = rel.slice(out.length + 1);
  const source = (file) => entryIn(stage, path.posix.join(workdir, rootDir, file), upto);
  const included = (file) => (tsconfig.include ?? []).some((dir) => file === dir || file.startsWith(`${dir}/`));
  if (inner === 'openapi.yaml') return source('openapi.yaml');
  const compiled = /^(.*)\.js(\.map)?$/.exec(inner);
  if (compiled && included(compiled[1])) {
    for (const ext of ['.ts', '.tsx', '.mts']) if (source(compiled[1] + ext) === 'file') return 'file';
  }
  if (BUILD_ASSET.test(inner) && BUILD_ASSET_DIRS.some((dir) => inner.startsWith(`${dir}/`))) return source(inner);
  // a folder of the output: some source folder it mirrors
  return included(inner) && source(inner) === 'dir' ? 'dir' : null;
}

/** What `stage` holds at the absolute path `abs` after its first `upto` layers: 'file', 'dir' or null. */
function entryIn(stage, abs, upto = stage.layers.length) {
  for (let i = upto - 1; i >= 0; i--) {
    const layer = stage.layers[i];
    if (layer.kind === 'copy') {
      for (const source of layer.sources) {
        // the source as seen from where it is copied from: another stage, or the build context
        const lookUp = (sub) =>
          layer.from
            ? entryIn(layer.from, path.posix.join(path.posix.resolve(layer.from.workdir, source), sub))
            : contextEntry(path.posix.join(source, sub));
        const kind = lookUp('');
        const dest = path.posix.resolve(layer.workdir, layer.dest);
        // a file lands in dest (or in dest/ under its own name); a folder's contents land in dest
        const intoFolder = layer.multiple || /\/$|^\.$/.test(layer.dest);
        const into = kind === 'file' && intoFolder ? path.posix.join(dest, path.posix.basename(source)) : dest;
        if (kind === 'file' && abs === into) return 'file';
        if (kind === 'dir' && (abs === into || abs.startsWith(`${into}/`))) {
          const found = lookUp(abs.slice(into.length));
          if (found) return found;
        }
      }
    } else if (abs === layer.workdir || abs.startsWith(`${layer.workdir}/`)) {
      const rel = path.posix.relative(layer.workdir, abs);
      const found = /\bnpm ci\b/.test(layer.command)
        ? npmCiEntry(layer.command, rel)
        : /\bnpm run build\b/.test(layer.command)
          ? buildEntry(stage, i, layer.workdir, rel)
          : null;
      if (found) return found;
    }
  }
  return stage.base ? entryIn(stage.base, abs) : null;
}

// ---- the compose file ---------------------------------------------------------------------------

/** The files a command line names, with where they would be: [{ token, abs }]. */
function namedFiles(args, workdir) {
  const named = [];
  const add = (token, { module = false, file = false } = {}) => {
    if (!token || token.startsWith('$') || token.includes('://')) return;
    const bare = module && !/^[./]/.test(token);
    const pkg = token
      .split('/')
      .slice(0, token.startsWith('@') ? 2 : 1)
      .join('/');
    const rel = bare ? `node_modules/${pkg}/package.json` : token;
    // otherwise a program (node) or a word, not a file
    if (!bare && !file && !token.includes('/') && !SCRIPT_FILE.test(token)) return;
    const abs = path.posix.resolve(workdir, rel);
    if (abs === workdir || abs.startsWith(`${workdir}/`)) named.push({ token, abs });
  };
  for (let i = 0; i < args.length; i++) {
    const arg = String(args[i]);
    const [option, value] = arg.split(/=(.*)/s);
    if (MODULE_OPTIONS.has(option)) add(value ?? String(args[++i] ?? ''), { module: true });
    else if (FILE_OPTIONS.has(option)) add(value ?? String(args[++i] ?? ''), { file: true });
    else if (!arg.startsWith('-')) add(arg);
  }
  return named;
}

function checkCompose(composeFile) {
  const compose = parse(read(composeFile));
  const problems = [];
  const dockerfiles = new Map();
  for (const [name, service] of Object.entries(compose.services ?? {})) {
    if (!service?.build) continue; // another image: its files are not ours to know
    const build = typeof service.build === 'string' ? { context: service.build } : service.build;
    const dockerfile = path.posix.join(build.context ?? '.', build.dockerfile ?? 'Dockerfile');
    if (path.posix.normalize(build.context ?? '.') !== '.') {
      throw new Error(`${name}: only the repository root is modelled as a build context`);
    }
    if (!dockerfiles.has(dockerfile)) dockerfiles.set(dockerfile, parseDockerfile(dockerfile));
    const stages = dockerfiles.get(dockerfile);
    const image = build.target ? stages.find((s) => s.name === build.target) : stages.at(-1);
    if (!image) throw new Error(`${name}: ${dockerfile} has no stage ${build.target}`);
    // compose's entrypoint replaces the image's and, like Docker, drops the image's CMD
    const entrypoint = service.entrypoint !== undefined ? argv(service.entrypoint) : (image.entrypoint ?? []);
    const imageCommand = service.entrypoint !== undefined ? [] : (image.cmd ?? []);
    const command = service.command !== undefined ? argv(service.command) : imageCommand;
    const workdir = service.working_dir ?? image.workdir;
    const line = [...entrypoint, ...command];
    for (const { token, abs } of namedFiles(line, workdir)) {
      const found = entryIn(image, abs);
      const status = found ? 'in the image' : 'NOT in the image';
      console.log(`${found ? 'ok  ' : 'FAIL'} ${name}: ${token} (${abs}) ${status}`);
      if (!found) {
        const where = `${dockerfile} (stage ${image.name})`;
        problems.push(`${name}: \`${line.join(' ')}\` names ${token}, which ${where} leaves out of the image`);
      }
    }
  }
  return problems;
}

const composeFile = process.argv[2] ?? 'docker-compose.yml';
const problems = checkCompose(path.relative(root, path.resolve(composeFile)));
if (problems.length) {
  console.error(`\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`${composeFile}: every file its commands name is in the image`);
