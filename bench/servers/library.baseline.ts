// The library baseline: raw node:http piping an upload's body to a file on the same disk, and
// fs.createReadStream serving it back (whole, or one `bytes=a-b` range).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const dir = process.env.BASELINE_DIR!;
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://local');
  if (req.method === 'POST') {
    const name = randomUUID();
    pipeline(req, createWriteStream(path.join(dir, name))).then(
      () => res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ name })),
      () => res.writeHead(500).end(),
    );
    return;
  }
  const file = path.join(dir, url.searchParams.get('name') ?? '');
  const size = statSync(file).size;
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), size - 1);
    res.writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${size}` });
    createReadStream(file, { start, end }).pipe(res);
  } else {
    res.writeHead(200, { 'Content-Length': size });
    createReadStream(file).pipe(res);
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`LISTENING ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
