package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class CursorTest {

  @Property
  void encode_thenDecode_roundTrips(@ForAll long sequence, @ForAll long to) {
    Cursor cursor = new Cursor(sequence, to);
    assertThat(Cursor.decode(cursor.encode())).contains(cursor);
  }

  @Test
  void decode_refusesAnythingItDidNotWrite() {
    assertThat(Cursor.decode(null)).isEmpty();
    assertThat(Cursor.decode("")).isEmpty();
    assertThat(Cursor.decode("not a cursor at all!!!")).isEmpty();
    assertThat(Cursor.decode("AAAA")).isEmpty();
  }
}
