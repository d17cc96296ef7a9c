// The Flite child process (see flite.engine.ts): compiles Flite's WASI build once, then speaks one
// request at a time into a WAV file. It lives apart from the worker so that a crash ends only this
// process; the parent restarts it.
//
// Each call instantiates Flite afresh (a WASI program's _start runs once) with a 20 MB linear memory
// that lives outside V8's heap, so the heap never feels the pressure and the garbage collector let
// dead instances pile up: after 30 to 50 calls the process died with SIGSEGV (measured: RSS +5 MB a
// call until the crash; with a collection after each call, 400 calls at a flat 156 MB). The parent
// starts this process with --expose-gc and it collects after every call.
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

const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

process.on('message', (request: Request) => {
  speak(request)
    .finally(collectGarbage)
    .then(
      () => process.send!({ id: request.id, ok: true }),
      (error: Error) => process.send!({ id: request.id, ok: false, error: String(error?.message ?? error) }),
    );
});
process.on('disconnect', () => process.exit(0));
