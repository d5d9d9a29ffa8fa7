package dev.ioqos.cli;

/** Entry point of {@code ioqos.jar}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.out.println("ioqos");
  }
}
