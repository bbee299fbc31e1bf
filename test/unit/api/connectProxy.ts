/**
 * A real HTTP CONNECT proxy on 127.0.0.1 that sends every tunnel to one loopback port, whatever
 * host the client asked for. A request to an unresolvable host that still succeeds proves it
 * went through the proxy; `tunnels` counts them.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** `host:port` of every CONNECT received. */
  tunnels: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(targetPort: number, options: { refuseWith?: number } = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(405).end('this proxy only tunnels');
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (options.refuseWith) {
      client.end(`HTTP/1.1 ${options.refuseWith} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
