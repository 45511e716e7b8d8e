package org.lprff.cli.workflow;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The helper threads of a command that uses {@code threads} cores: the calling thread works too,
 * so {@code threads - 1} daemon helpers keep every core busy (none for one thread). Closing stops
 * them, whatever the command's outcome.
 */
public final class HelperPool implements AutoCloseable {

  private final ExecutorService pool;

  private HelperPool(ExecutorService pool) {
    this.pool = pool;
  }

  /** Starts {@code threads - 1} helpers named {@code name}. */
  public static HelperPool start(int threads, String name) {
    return new HelperPool(threads > 1 ? Executors.newFixedThreadPool(threads - 1, runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    }) : null);
  }

  /** The helpers, or null when the caller works alone (the library's executors accept null). */
  public ExecutorService executor() {
    return pool;
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
