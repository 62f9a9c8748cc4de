package org.openxet.testing;

/**
 * The main class of the s3proxy child {@link S3Server} starts: s3proxy's own main, plus an end the moment the test JVM
 * that started it is gone. Its standard input is a pipe from that JVM, closed by the kernel however it ends, even by
 * {@code kill -9} (when no shutdown hook runs): no s3proxy outlives its tests. Uses nothing but the JDK, since it runs
 * on s3proxy's classpath.
 */
public final class S3ProxyMain {
    private S3ProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        Thread parent = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; only the end of the stream matters
                }
            } catch (java.io.IOException ignored) {
                // a broken pipe ends it the same way
            }
            Runtime.getRuntime().halt(0);
        }, "test-jvm-watch");
        parent.setDaemon(true);
        parent.start();
        Class.forName("org.gaul.s3proxy.Main").getMethod("main", String[].class).invoke(null, (Object) args);
    }
}
