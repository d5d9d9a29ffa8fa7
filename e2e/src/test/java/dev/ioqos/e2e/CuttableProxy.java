package dev.ioqos.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on the loopback between the agent and the API server, which a test can cut (every
 * connection closed, new ones refused) and restore: the API server unreachable, as when it is
 * stopped or restarted, without touching the one every test shares.
 */
final class CuttableProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile ServerSocket server;
  private volatile boolean closed;

  CuttableProxy(URI apiServer) throws IOException {
    this.target = new InetSocketAddress(apiServer.getHost(), apiServer.getPort());
    ServerSocket first = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.port = first.getLocalPort();
    listen(first);
  }

  int port() {
    return port;
  }

  /** Closes every connection and the listening socket: connections are refused until restored. */
  synchronized void cut() throws IOException {
    server.close();
    for (Socket socket : open) {
      socket.close();
    }
    open.clear();
  }

  /** Listens again on the same port. */
  synchronized void restore() throws IOException {
    ServerSocket again = new ServerSocket();
    again.setReuseAddress(true);
    again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
    listen(again);
  }

  private void listen(ServerSocket socket) {
    server = socket;
    Thread accept =
        new Thread(
            () -> {
              while (!socket.isClosed()) {
                try {
                  Socket client = socket.accept();
                  Socket upstream = new Socket(target.getAddress(), target.getPort());
                  open.add(client);
                  open.add(upstream);
                  pipe(client, upstream);
                  pipe(upstream, client);
                } catch (IOException e) {
                  // Cut or closed.
                }
              }
            },
            "proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  private void pipe(Socket from, Socket to) {
    Thread thread =
        new Thread(
            () -> {
              byte[] buffer = new byte[16384];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // One side went.
              } finally {
                try {
                  from.close();
                  to.close();
                } catch (IOException ignored) {
                  // Already closed.
                }
              }
            },
            "proxy-pipe");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void close() throws IOException {
    closed = true;
    cut();
  }
}
