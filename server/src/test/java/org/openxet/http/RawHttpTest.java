package org.openxet.http;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The gates' client against a real loopback socket: bodies of every size cross the connection's 16 KiB header
 * buffer and the 256 KiB reads, kept byte for byte or discarded into the shared array, and each answer ends where the
 * next begins on a kept-alive connection.
 */
class RawHttpTest {
    /** A body whose every byte says where it is, so a byte out of place shows. */
    private static byte[] body(int size, int salt) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) b[i] = (byte) (i * 31 + salt);
        return b;
    }

    /**
     * Answers {@code /length/SIZE/SALT} with a Content-Length and {@code /chunked/SIZE/SALT} in 3 chunks, the body
     * {@link #body}, each connection until its client closes it.
     */
    private static ServerSocket serve(ExecutorService pool) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        pool.submit(() -> {
            while (!server.isClosed()) {
                Socket s;
                try {
                    s = server.accept();
                } catch (IOException closed) {
                    return null;
                }
                pool.submit(() -> answer(s));
            }
            return null;
        });
        return server;
    }

    private static Void answer(Socket s) throws IOException {
        try (s) {
            var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = s.getOutputStream();
            for (String request = in.readLine(); request != null; request = in.readLine()) {
                while (!in.readLine().isEmpty()) {
                    // headers
                }
                String[] path = request.split(" ")[1].split("/");
                int size = Integer.parseInt(path[2]);
                int salt = Integer.parseInt(path[3]);
                byte[] b = body(size, salt);
                if (path[1].equals("length")) {
                    out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: " + size + "\r\n\r\n"));
                    out.write(b);
                } else {
                    out.write(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
                    int third = size / 3;
                    for (int[] chunk : new int[][]{{0, third}, {third, 2 * third}, {2 * third, size}}) {
                        int n = chunk[1] - chunk[0];
                        if (n == 0) continue;
                        out.write(ascii(Integer.toHexString(n) + "\r\n"));
                        out.write(b, chunk[0], n);
                        out.write(ascii("\r\n"));
                    }
                    out.write(ascii("0\r\n\r\n"));
                }
                out.flush();
            }
        }
        return null;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] get(String kind, int size, int salt, int port) {
        return RawHttp.get("127.0.0.1", port, "/" + kind + "/" + size + "/" + salt, null, null);
    }

    @Test
    void keptBodiesOfEverySizeArriveByteForByteOnOneConnection() throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor(); ServerSocket server = serve(pool);
             RawHttp http = new RawHttp("127.0.0.1", server.getLocalPort())) {
            int salt = 0;
            for (String kind : List.of("length", "chunked")) {
                for (int size : new int[]{0, 5, 16 * 1024 - 40, 16 * 1024 + 1, 256 * 1024, 3 * 1024 * 1024 + 7}) {
                    salt++;
                    ByteArrayOutputStream kept = new ByteArrayOutputStream();
                    RawHttp.Response r = http.exchange(get(kind, size, salt, server.getLocalPort()), kept);
                    assertEquals(200, r.status(), kind + " " + size);
                    assertEquals(size, r.bodyBytes(), kind + " " + size);
                    assertArrayEquals(body(size, salt), kept.toByteArray(), kind + " " + size);
                }
            }
        }
    }

    @Test
    void discardedBodiesOnManyConnectionsAtOnceLeaveEachNextAnswerWhole() throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor(); ServerSocket server = serve(pool)) {
            int port = server.getLocalPort();
            List<Future<Void>> clients = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int salt = c;
                clients.add(pool.submit(() -> {
                    try (RawHttp http = new RawHttp("127.0.0.1", port)) {
                        for (int round = 0; round < 5; round++) {
                            // Discarded into the array every connection shares while the others do the same...
                            int size = 1024 * 1024 + round;
                            RawHttp.Response dropped = http.exchange(get("length", size, salt, port), null);
                            assertEquals(size, dropped.bodyBytes());
                            // ...and the next answer on the same connection still starts at its own first byte.
                            ByteArrayOutputStream kept = new ByteArrayOutputStream();
                            RawHttp.Response r = http.exchange(get("chunked", 40_000 + round, salt + 100, port), kept);
                            assertEquals(200, r.status());
                            assertArrayEquals(body(40_000 + round, salt + 100), kept.toByteArray());
                        }
                    }
                    return null;
                }));
            }
            for (Future<Void> f : clients) f.get();
        }
    }
}
