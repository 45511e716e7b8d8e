package org.lprff.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A child allocator per test; the test fails if it ends with bytes still allocated. */
public abstract class ArrowTestBase {

  private RootAllocator root;
  protected BufferAllocator allocator;

  @BeforeEach
  protected void openAllocator() {
    root = new RootAllocator();
    allocator = root.newChildAllocator(getClass().getSimpleName(), 0, Long.MAX_VALUE);
  }

  @AfterEach
  protected void closeAllocatorAndCheckForLeaks() {
    long outstanding = allocator.getAllocatedMemory();
    allocator.close();
    root.close();
    assertEquals(0, outstanding, "bytes still allocated after the test");
  }
}
