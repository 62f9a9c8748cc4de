package org.openxet.testing;

import org.openxet.storage.Index;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;

/**
 * A real index seen through a view that records the name of each of its methods called, for tests that count the
 * lookups a read makes (each one a statement and a round trip on PostgreSQL).
 */
public final class IndexCalls {
    private IndexCalls() {
    }

    /** {@code index}, each call's method name appended to {@code calls} when it starts with {@code prefix}. */
    public static Index recording(Index index, String prefix, List<String> calls) {
        return (Index) Proxy.newProxyInstance(Index.class.getClassLoader(), new Class<?>[]{Index.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith(prefix)) calls.add(method.getName());
                    try {
                        return method.invoke(index, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
