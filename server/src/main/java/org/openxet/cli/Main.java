package org.openxet.cli;

public final class Main {
    public static void main(String[] args) {
        System.out.println("openxet");
    }
}
