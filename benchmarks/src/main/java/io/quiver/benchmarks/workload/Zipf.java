package io.quiver.benchmarks.workload;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Ranks 0..n-1 drawn with probability proportional to 1 / (rank + 1)^shape, from a precomputed CDF. */
final class Zipf {
  private final double[] cdf;

  Zipf(int n, double shape) {
    cdf = new double[n];
    double sum = 0;
    for (int k = 0; k < n; k++) {
      sum += 1 / Math.pow(k + 1, shape);
      cdf[k] = sum;
    }
    for (int k = 0; k < n; k++) {
      cdf[k] /= sum;
    }
  }

  int next(SplittableRandom random) {
    int at = Arrays.binarySearch(cdf, random.nextDouble());
    return Math.min(cdf.length - 1, at >= 0 ? at : -at - 1);
  }
}
