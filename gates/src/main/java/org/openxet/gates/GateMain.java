package org.openxet.gates;

public final class GateMain {
    public static void main(String[] args) {
        System.out.println("gates");
    }
}
