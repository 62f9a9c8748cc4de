package org.openxet.protocol.shard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Little-endian field access: every shard integer is LE and unsigned (§4). Callers check bounds first. */
final class Le {
    private static final VarHandle U32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle U64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Le() {
    }

    static int u32(byte[] b, int off) {
        return (int) U32.get(b, off);
    }

    static long u64(byte[] b, int off) {
        return (long) U64.get(b, off);
    }

    static void putU32(byte[] b, int off, int v) {
        U32.set(b, off, v);
    }

    static void putU64(byte[] b, int off, long v) {
        U64.set(b, off, v);
    }
}
