// The baseline: raw node:http + pg, one route, running exactly the SQL a scenario names.
import http from 'node:http';
import pg from 'pg';

export type BaselineHandler = (url: URL, pool: pg.Pool) => Promise<unknown>;

export function serveBaseline(handler: BaselineHandler): void {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const server = http.createServer((req, res) => {
    handler(new URL(req.url ?? '/', 'http://local'), pool).then(
      (body) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (error: Error) => {
        res.writeHead(500);
        res.end(error.message);
      },
    );
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(`LISTENING ${typeof address === 'object' && address ? address.port : 0}`);
  });
  process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}
