package org.lprff.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import io.netty.buffer.PooledByteBufAllocatorL;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.netty.NettyAllocationManager;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lprff.arrow.FeatureFileBatches;
import org.lprff.arrow.FeatureFileBatches.Order;
import org.lprff.arrow.FeatureSchema;
import org.lprff.arrow.FeatureWriter;
import org.lprff.arrow.LabelType;
import org.lprff.arrow.input.RowBatch;
import org.lprff.arrow.input.RowBatches;
import org.lprff.fixtures.Diamonds;
import org.lprff.vector.featurize.Featurizer;
import org.lprff.vector.stream.MiniBatchSource;
import org.lprff.vector.train.loss.Task;
import org.lprff.vector.train.minibatch.Schedule;
import org.lprff.vector.train.minibatch.SgdSolver;

/**
 * Soak (issue 19, load): featurize, train and predict again and again in one JVM, through the
 * command line in-process and through the library on an allocator of this test, for a bounded
 * time ({@code -Dlprff.soak.seconds}, default 60; at least two cycles of the variants), and
 * nothing grows: the test's Arrow allocator holds 0 bytes after every round and its peak stops
 * growing after the first cycle, and after that first cycle (warm-up: classes load, pools and
 * caches fill) the open file descriptors ({@code /proc/self/fd}), the live threads, the JDK's
 * direct buffers stay at most what they were, the native memory of Arrow's allocation manager
 * (every allocator's, the commands' included: netty's pool, its huge and normal buffers) is 0, no file of the soak's folder stays mapped ({@code
 * /proc/self/maps}), and every command's own allocator closes empty (a command whose allocator
 * closes with bytes held fails with "Memory was leaked"), and the resident set outside the
 * committed heap (the heap itself grows and shrinks at the collector's will; G1 returns freed
 * regions concurrently, hence the pause after each collection) grows by at most 64 MiB. With
 * {@code -XX:NativeMemoryTracking=summary} the JVM's own count of memory outside the heap is
 * printed beside.
 *
 * <p>A round: {@code featurize} 4,000 diamonds rows (the slice moves every round) at the
 * variant's bits and projection; {@code train} on them with the variant's solver (sgd, lbfgs, cg,
 * closed-form); {@code predict} the rows; then the library writes the same rows' features with
 * {@link FeatureWriter} into the test's allocator and trains SGD from the file through {@link
 * FeatureFileBatches}, on the reader path (the test's allocator) and the mapped path.
 */
class SoakIT {

  private static final String[][] VARIANTS = {
    {"4", "circulant", "sgd"},
    {"8", "dense", "lbfgs"},
    {"1", "fastfood", "cg"},
    {"32", "orthogonal", "closed-form"},
  };
  private static final int SLICE = 4000;
  /**
   * How far the resident set outside the committed heap may wander after warm-up (the code
   * cache and metaspace of late compilations): a round's features leaked (8 MB at 32 bits)
   * exceed it within the default minute.
   */
  private static final long RESIDENT_SLACK = 64L << 20;

  @TempDir Path dir;

  @Test
  void featurizeAndTrainAgainAndAgainLeaveNothingBehind() throws Exception {
    long seconds = Long.getLong("lprff.soak.seconds", 60);
    Path csv = Diamonds.copyTo(dir);
    Path features = dir.resolve("f.arrow");
    Path model = dir.resolve("m.lprff");
    Path predictions = dir.resolve("p.csv");
    Path library = dir.resolve("library.arrow");
    List<Sample> samples = new ArrayList<>();
    long started = System.nanoTime();
    long deadline = started + seconds * 1_000_000_000L;
    try (RootAllocator root = new RootAllocator()) {
      // The counter below is the netty manager's, the one Arrow picks with netty present: a
      // buffer of 1 MiB shows in it.
      long before = arrowNativeBytes();
      try (ArrowBuf probe = root.buffer(1 << 20)) {
        assertTrue(arrowNativeBytes() >= before + (1 << 20), "Arrow allocates elsewhere");
      }
      for (int round = 0;
          round < 2 * VARIANTS.length || System.nanoTime() < deadline; round++) {
        String[] v = VARIANTS[round % VARIANTS.length];
        int from = (round * SLICE) % (Diamonds.ROWS - SLICE);
        Cli.ok("featurize", "--input", csv.toString(), "--label-column", "last", "--rows",
            from + ":" + (from + SLICE), "--standardize", "--sigma", "2", "--features", "512",
            "--bits", v[0], "--projection", v[1], "--seed", Integer.toString(round),
            "--output", features.toString(), "--quiet");
        Cli.ok("train", "--train", features.toString(), "--heldout", features.toString(),
            "--task", "regression", "--solver", v[2], "--epochs", "2", "--model",
            model.toString(), "--quiet");
        Cli.ok("predict", "--model", model.toString(), "--input", csv.toString(),
            "--label-column", "last", "--output", predictions.toString());
        try (BufferAllocator allocator = root.newChildAllocator("round " + round, 0,
            Long.MAX_VALUE)) {
          libraryRound(features, library, allocator, round);
          assertEquals(0, allocator.getAllocatedMemory(), "round " + round + ": bytes held");
        }
        assertEquals(0, root.getAllocatedMemory(), "round " + round + ": bytes held");
        // Direct buffers the collector frees are not leaks; G1 returns the heap's freed regions
        // to the system concurrently, so the resident set settles a moment after the collection.
        System.gc();
        Thread.sleep(500);
        Sample s = Sample.take(round, root.getPeakMemoryAllocation(), dir);
        samples.add(s);
        System.out.printf(Locale.ROOT, "soak round %d (%s): fds %d, threads %d, rss %.1f MiB,"
                + " heap committed %.1f MiB, outside the heap (NMT) %s%n", round,
            String.join(" ", v), s.fds(), s.threads(), s.rss() / 1048576.0,
            s.heap() / 1048576.0, mib(s.nativeCommitted()));
        assertEquals(0, s.mappedHere(), "round " + round + ": files of " + dir + " still mapped");
      }
    }
    double minutes = (System.nanoTime() - started) / 60e9;
    Sample warm = samples.get(VARIANTS.length - 1);
    Sample last = samples.getLast();
    System.out.printf(Locale.ROOT, "soak: %d rounds in %.2f min (%.1f rounds/min); after warm-up"
            + " (round %d) -> last: fds %d -> %d (max %d), threads %d -> %d, direct buffers %d"
            + " (%d B) -> %d (%d B), Arrow's native (netty) %d -> %d B, rss %.1f -> %.1f MiB"
            + " (heap committed %.1f -> %.1f MiB; outside the heap by NMT %s -> %s),"
            + " allocator peak %d -> %d B%n",
        samples.size(), minutes, samples.size() / minutes, warm.round(), warm.fds(), last.fds(),
        samples.stream().skip(VARIANTS.length).mapToLong(Sample::fds).max().orElse(0),
        warm.threads(), last.threads(), warm.directCount(), warm.directBytes(),
        last.directCount(), last.directBytes(), warm.nettyBytes(), last.nettyBytes(),
        warm.rss() / 1048576.0, last.rss() / 1048576.0, warm.heap() / 1048576.0,
        last.heap() / 1048576.0, mib(warm.nativeCommitted()), mib(last.nativeCommitted()),
        warm.peak(), last.peak());
    for (Sample s : samples.subList(VARIANTS.length, samples.size())) {
      String where = "round " + s.round() + " against round " + warm.round() + ": " + s
          + " vs " + warm;
      assertTrue(s.fds() <= warm.fds(), "file descriptors grew, " + where);
      assertTrue(s.threads() <= warm.threads(), "threads grew, " + where);
      assertTrue(s.directCount() <= warm.directCount()
          && s.directBytes() <= warm.directBytes(), "direct buffers grew, " + where);
      assertEquals(warm.peak(), s.peak(), "the allocator's peak grew, " + where);
      assertEquals(0, s.nettyBytes(), "Arrow's native memory held, " + where);
      assertTrue(s.rss() - s.heap() <= warm.rss() - warm.heap() + RESIDENT_SLACK,
          "resident memory outside the heap grew, " + where);
    }
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "off" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
  }

  /** The library's own featurize-then-train, on {@code allocator}. */
  private static void libraryRound(Path features, Path out, BufferAllocator allocator, int round)
      throws IOException {
    FeatureSchema schema;
    try (FeatureFileBatches read = FeatureFileBatches.reader(features, allocator,
        Order.values()[round % Order.values().length], false)) {
      train(read);
    }
    try (FeatureFileBatches mapped = FeatureFileBatches.mapped(features, Order.ROWS, false)) {
      train(mapped);
      schema = mapped.schema();
    }
    float[] rows = new float[SLICE * Diamonds.D];
    float[] labels = new float[SLICE];
    for (int r = 0; r < SLICE; r++) {
      for (int c = 0; c < Diamonds.D; c++) {
        rows[r * Diamonds.D + c] = (float) Math.sin(r * 0.37 + c + round);
      }
      labels[r] = (float) Math.cos(r * 0.11);
    }
    RowBatches source = new RowBatches() {
      int next;

      @Override
      public RowBatch next() {
        if (next >= SLICE) {
          return null;
        }
        int n = Math.min(1000, SLICE - next);
        RowBatch batch = new RowBatch(
            Arrays.copyOfRange(rows, next * Diamonds.D, (next + n) * Diamonds.D), n,
            Diamonds.D, Arrays.copyOfRange(labels, next, next + n), next);
        next += n;
        return batch;
      }
    };
    FeatureSchema written = FeatureSchema.of(schema.spec(), LabelType.REGRESSION, true);
    FeatureWriter.builder(out, Featurizer.of(schema.spec()), written, allocator)
        .batchSize(512).write(source);
    try (FeatureFileBatches read = FeatureFileBatches.reader(out, allocator, Order.BLOCKS,
        false)) {
      train(read);
    }
  }

  private static void train(MiniBatchSource source) {
    SgdSolver.builder(Task.REGRESSION, source.features()).batchSize(64).l2(1e-4).seed(1)
        .schedule(Schedule.fixed(1, 0.05)).build().train(source, null);
  }

  /**
   * The bytes Arrow's netty allocation manager hands out now, over every allocator of the JVM:
   * its pool's huge and normal buffers (chunks it caches for reuse are not counted).
   */
  static long arrowNativeBytes() {
    try {
      Field inner = NettyAllocationManager.class.getDeclaredField("INNER_ALLOCATOR");
      inner.setAccessible(true);
      PooledByteBufAllocatorL pool = (PooledByteBufAllocatorL) inner.get(null);
      return pool.getHugeBufferSize() + pool.getNormalBufferSize();
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("Arrow's netty allocation manager changed", e);
    }
  }

  /**
   * The JVM's committed memory outside the Java heap by Native Memory Tracking (run with
   * {@code -XX:NativeMemoryTracking=summary}), or -1 when it is off.
   */
  static long outsideTheHeap() {
    try {
      String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
          new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
      Matcher total = Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
          .matcher(summary);
      Matcher heap = Pattern.compile("Java Heap \\(reserved=\\d+KB, committed=(\\d+)KB")
          .matcher(summary);
      return total.find() && heap.find()
          ? (Long.parseLong(total.group(1)) - Long.parseLong(heap.group(1))) * 1024 : -1;
    } catch (JMException e) {
      return -1;
    }
  }

  /** What a round leaves behind. */
  private record Sample(int round, long fds, long threads, long directCount, long directBytes,
      long nettyBytes, long rss, long heap, long nativeCommitted, long peak, long mappedHere) {

    static Sample take(int round, long peak, Path dir) throws IOException {
      long fds;
      try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
        fds = open.count();
      }
      long directCount = 0;
      long directBytes = 0;
      for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
        if (pool.getName().equals("direct")) {
          directCount = pool.getCount();
          directBytes = pool.getMemoryUsed();
        }
      }
      String soakDir = dir.toRealPath().toString();
      long mapped = Files.readAllLines(Path.of("/proc/self/maps")).stream()
          .filter(line -> line.contains(soakDir)).count();
      long rss = Files.readAllLines(Path.of("/proc/self/status")).stream()
          .filter(line -> line.startsWith("VmRSS:"))
          .mapToLong(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024)
          .findFirst().orElse(0);
      return new Sample(round, fds, ManagementFactory.getThreadMXBean().getThreadCount(),
          directCount, directBytes, arrowNativeBytes(), rss,
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted(),
          outsideTheHeap(), peak, mapped);
    }
  }
}
