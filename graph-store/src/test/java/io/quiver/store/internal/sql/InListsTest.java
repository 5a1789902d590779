package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InListsTest {

  @Test
  void bucket_isTheNextPowerOfTwo_soFewStatementShapesExist() {
    assertThat(InLists.bucket(1)).isEqualTo(1);
    assertThat(InLists.bucket(2)).isEqualTo(2);
    assertThat(InLists.bucket(3)).isEqualTo(4);
    assertThat(InLists.bucket(500)).isEqualTo(512);
    Set<Integer> shapes = new HashSet<>();
    for (int n = 1; n <= 500; n++) {
      assertThat(InLists.bucket(n)).isGreaterThanOrEqualTo(n);
      shapes.add(InLists.bucket(n));
    }
    assertThat(shapes).hasSize(10);
    assertThat(InLists.placeholders(3)).isEqualTo("?, ?, ?");
  }
}
