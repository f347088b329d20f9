// A round-robin load balancer on loopback, standing in for a Kubernetes Service or an Ingress in front
// of replicas. 'http' picks the next replica for every request (each on a fresh upstream connection,
// headers passed as they came, so X-Forwarded-For is the client's own); 'tcp' picks one per connection,
// as an L4 Service does for the long-lived HTTP/2 connections of gRPC. `hits` counts what each got.
import { createServer as createHttpServer, request } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import type { Server, Socket } from 'node:net';

export interface Balancer {
  url: string;
  /** host:port, for gRPC clients. */
  address: string;
  /** Requests (http) or connections (tcp) sent to each backend, in the order given. */
  hits: number[];
  stop(): Promise<void>;
}

export async function startBalancer(mode: 'http' | 'tcp', port: number, backendPorts: number[]): Promise<Balancer> {
  const hits = backendPorts.map(() => 0);
  let turn = 0;
  const pick = () => {
    const index = turn++ % backendPorts.length;
    hits[index]!++;
    return backendPorts[index]!;
  };
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server: Server =
    mode === 'tcp'
      ? createTcpServer((client) => {
          const upstream = connect(pick(), '127.0.0.1');
          for (const s of [client, upstream]) {
            track(s);
            s.on('error', () => (client.destroy(), upstream.destroy()));
          }
          client.pipe(upstream).pipe(client);
        })
      : createHttpServer((req, res) => {
          const upstream = request(
            {
              host: '127.0.0.1',
              port: pick(),
              method: req.method,
              path: req.url,
              headers: { ...req.headers, connection: 'close' },
              agent: false,
            },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
              answer.pipe(res);
            },
          );
          upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
          req.pipe(upstream);
        });
  server.on('connection', track);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    hits,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
