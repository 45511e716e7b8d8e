package org.lprff.vector.simd;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs task indices 0..count-1 on an executor and on the calling thread (workers pull indices
 * from one counter, so uneven tasks balance themselves), returning when all are done. The first
 * failure is rethrown (an exception from the calling thread first); the remaining tasks are
 * skipped. The featurizer, the on-the-fly mini-batches and the kernel-matrix metrics share it.
 */
public final class ParallelTasks {

  private ParallelTasks() {}

  /**
   * Runs {@code task.accept(t)} for every t in [0, count): on the calling thread alone when
   * executor is null or count <= 1, else on the calling thread and at most min(count - 1, cores)
   * tasks of the executor.
   */
  public static void run(int count, Executor executor, IntConsumer task) {
    if (executor == null || count <= 1) {
      for (int t = 0; t < count; t++) {
        task.accept(t);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    Runnable worker =
        () -> {
          for (int t; (t = next.getAndIncrement()) < count; ) {
            task.accept(t);
          }
        };
    List<CompletableFuture<Void>> helpers = new ArrayList<>();
    // The caller is a worker too: a pool of parallelism k keeps k + 1 cores busy.
    int helperCount = Math.min(count - 1, Runtime.getRuntime().availableProcessors());
    for (int i = 0; i < helperCount; i++) {
      helpers.add(CompletableFuture.runAsync(worker, executor));
    }
    RuntimeException callerFailure = null;
    try {
      worker.run();
    } catch (RuntimeException e) {
      next.set(count); // the helpers stop taking tasks
      callerFailure = e;
    }
    try {
      CompletableFuture.allOf(helpers.toArray(new CompletableFuture<?>[0])).join();
    } catch (CompletionException e) {
      if (callerFailure == null) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw e;
      }
    }
    if (callerFailure != null) {
      throw callerFailure;
    }
  }
}
