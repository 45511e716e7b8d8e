package org.lprff.vector.codec;

/**
 * How a featurizer rounds features to b bits (DESIGN.md section 1): {@link #STOCHASTIC} is
 * unbiased (E[Q(z)] = z) and is what LP-RFFs use; {@link #NEAREST} is deterministic and biased,
 * kept as a baseline. The {@link #key()} is the value stored under {@code lprff.quantizer}.
 */
public enum Quantizer {
  STOCHASTIC("stochastic"),
  NEAREST("nearest");

  private final String key;

  Quantizer(String key) {
    this.key = key;
  }

  /** The metadata spelling: {@code stochastic} or {@code nearest}. */
  public String key() {
    return key;
  }

  /** The quantizer spelled {@code key}; rejects anything else naming the value. */
  public static Quantizer fromKey(String key) {
    for (Quantizer q : values()) {
      if (q.key.equals(key)) {
        return q;
      }
    }
    throw new IllegalArgumentException(
        "quantizer is '" + key + "', expected stochastic or nearest");
  }
}
