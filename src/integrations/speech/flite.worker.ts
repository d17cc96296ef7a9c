// The Flite child process (see flite.engine.ts): compiles Flite's WASI build once, then speaks one
// request at a time into a WAV file. Flite aborts the whole process on long input, which is why it
// lives here and not in the worker: the parent restarts this process when it dies.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WASI } from 'node:wasi';

interface Request {
  id: number;
  wasmPath: string;
  voice: string;
  text: string;
  outFile: string;
}

let compiled: { path: string; module: Promise<WebAssembly.Module> } | undefined;

function moduleFor(wasmPath: string): Promise<WebAssembly.Module> {
  if (compiled?.path !== wasmPath) compiled = { path: wasmPath, module: WebAssembly.compile(readFileSync(wasmPath)) };
  return compiled.module;
}

async function speak(request: Request): Promise<void> {
  const module = await moduleFor(request.wasmPath);
  // a fresh instance per call: a WASI program's _start runs once
  const wasi = new WASI({
    version: 'preview1',
    returnOnExit: true,
    preopens: { '/out': path.dirname(request.outFile) },
    args: ['flite', '-voice', request.voice, '-t', request.text, '-o', `/out/${path.basename(request.outFile)}`],
  });
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject() as WebAssembly.Imports);
  const code = wasi.start(instance);
  if (code !== 0) throw new Error(`flite exited with code ${code}`);
}

process.on('message', (request: Request) => {
  speak(request).then(
    () => process.send!({ id: request.id, ok: true }),
    (error: Error) => process.send!({ id: request.id, ok: false, error: String(error?.message ?? error) }),
  );
});
process.on('disconnect', () => process.exit(0));
