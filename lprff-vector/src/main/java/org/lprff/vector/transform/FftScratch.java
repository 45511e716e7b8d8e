package org.lprff.vector.transform;

/** Thread-confined scratch for the FFT paths that do not take the caller's. */
final class FftScratch {

  private static final ThreadLocal<float[]> BUFFER = ThreadLocal.withInitial(() -> new float[0]);

  private FftScratch() {}

  /** A buffer of at least the given length owned by the calling thread; contents undefined. */
  static float[] get(int length) {
    float[] buffer = BUFFER.get();
    if (buffer.length < length) {
      buffer = new float[length];
      BUFFER.set(buffer);
    }
    return buffer;
  }
}
